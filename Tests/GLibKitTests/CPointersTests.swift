import CGLib
import GLibKit
import Testing

/// The checked casts and callback data of `CPointers.swift`, on real GObjects.
@Suite struct CPointersTests {
    @Test("A checked cast answers for the instance's own type and its ancestors, and nil for others")
    func checkedCasts() {
        let bytes: [UInt8] = [1, 2, 3]
        let stream = bytes.withUnsafeBytes { raw in
            ObjectRef(taking: g_memory_input_stream_new_from_data(g_memdup2(raw.baseAddress, 3), 3, g_free)!)
        }
        let raw = UnsafeMutableRawPointer(stream.pointer)
        #expect(GObjectCast.isInstance(raw, of: g_input_stream_get_type()))
        #expect(GObjectCast.isInstance(raw, of: g_seekable_get_type()))
        #expect(!GObjectCast.isInstance(raw, of: g_output_stream_get_type()))
        #expect(GObjectCast.instance(raw, of: g_input_stream_get_type(), as: GInputStream.self) != nil)
        #expect(GObjectCast.instance(raw, of: g_socket_connection_get_type(), as: GSocketConnection.self) == nil)
        var read = [UInt8](repeating: 0, count: 3)
        let count = read.withUnsafeMutableBytes { out in
            g_input_stream_read(GObjectCast.upcast(raw, to: GInputStream.self), out.baseAddress, 3, nil, nil)
        }
        #expect(count == 3 && read == bytes)
    }

    @Test("Data lent to a callback keeps its object alive until taken back, exactly once")
    func callbackDataBalances() {
        final class Payload { let value = 42 }
        weak var watched: Payload?
        let data: UnsafeMutableRawPointer
        do {
            let payload = Payload()
            watched = payload
            data = CallbackData.retain(payload)
        }
        #expect(watched != nil)
        #expect(CallbackData.take(data, as: Payload.self).value == 42)
        #expect(watched == nil)
    }

    @Test("Data borrowed in a callback leaves its object's references as they were")
    func callbackDataBorrows() {
        final class Payload { var calls = 0 }
        weak var watched: Payload?
        do {
            let payload = Payload()
            watched = payload
            let lent = CallbackData.lend(payload)
            for _ in 0..<3 { CallbackData.borrow(lent, as: Payload.self).calls += 1 }
            #expect(payload.calls == 3)
        }
        #expect(watched == nil) // lent without a reference: gone with its owner's
        let data: UnsafeMutableRawPointer
        do {
            let payload = Payload()
            watched = payload
            data = CallbackData.retain(payload)
        }
        for _ in 0..<3 { CallbackData.borrow(data, as: Payload.self).calls += 1 }
        #expect(watched?.calls == 3) // still held by the data
        _ = CallbackData.take(data, as: Payload.self)
        #expect(watched == nil)
    }

    @Test("Bytes reach C as the pointers it takes, and text at a gpointer reads back")
    func bytesAndText() {
        let text = "tEXt::Comment"
        let copy = g_strdup(text)!
        defer { g_free(copy) }
        #expect(String(cStringAt: UnsafeRawPointer(copy)) == text)
        let bytes: [UInt8] = Array("GIF89a".utf8)
        let checksum = bytes.withUnsafeBytes { raw in
            g_compute_checksum_for_data(G_CHECKSUM_MD5, raw.cBytes, gsize(raw.count)).map { pointer in
                defer { g_free(pointer) }
                return String(cString: pointer)
            }
        }
        let direct = g_compute_checksum_for_string(G_CHECKSUM_MD5, "GIF89a", -1).map { pointer in
            defer { g_free(pointer) }
            return String(cString: pointer)
        }
        #expect(checksum != nil && checksum == direct)
    }
}
