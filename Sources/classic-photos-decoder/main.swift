// The decoder helper: decodes pictures for Classic Photos in a process of its own, started
// and confined by the app (see `DecoderPool`). It talks to the app on descriptor 3.
import CDecoderSandbox
import Foundation
import PhotoPipeline

let arguments = CommandLine.arguments
guard fcntl(3, F_GETFD) >= 0 else {
    FileHandle.standardError.write(Data("classic-photos-decoder is started by Classic Photos, not by hand\n".utf8))
    exit(2)
}

// The address-space limit, unless a sanitizer's runtime is in the process: those reserve
// terabytes of address space for their shadow memory.
var addressSpace: UInt64 = 0
if let index = arguments.firstIndex(of: "--limit-memory"), index + 1 < arguments.count,
    let bytes = UInt64(arguments[index + 1])
{
    let sanitized = ["__tsan_init", "__asan_init"].contains { (name: String) in
        dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) != nil
    }
    if !sanitized, cp_sandbox_limit_memory(bytes) == 0 { addressSpace = bytes }
}

var message: UnsafePointer<CChar>?
let filterStatus = cp_sandbox_apply(&message)
if filterStatus != 0 {
    let what = message.map { String(cString: $0) } ?? "seccomp"
    FileHandle.standardError.write(
        Data("classic-photos-decoder: \(what) failed (\(String(cString: strerror(-filterStatus))))\n".utf8))
    // Without its filter a helper does not decode.
    exit(3)
}

DecoderHelper.serve(
    socket: 3, filtered: true, addressSpace: addressSpace,
    faults: ProcessInfo.processInfo.environment["CLASSIC_PHOTOS_DECODER_FAULTS"] == "1")
