import CGLib
import CSoup
import Foundation

extension HTTPClient {
    /// Reading a photo head first (`fetchHead`): the request for its first bytes only
    /// (`Range: bytes=0-…`), and the checks that a 206 answering it is those bytes: its
    /// `Content-Range` starts at 0 and ends within them, and its body is as long as it says.
    enum HeadRange {
        /// What a 206 sent: the whole photo's size (0 if unknown) and the last byte the body
        /// ends at.
        typealias Part = (total: Int, last: Int)

        /// Asks `message` for the first `bytes` bytes only.
        static func ask(_ message: OpaquePointer, bytes: Int) {
            soup_message_headers_set_range(soup_message_get_request_headers(message), 0, goffset(bytes - 1))
        }

        /// The part a 206 from `host` says it sends, for a request of the first `head` bytes (nil:
        /// the whole photo was asked for); `wrong-part` when it is not the first bytes asked for.
        static func part(_ headers: OpaquePointer?, asked head: Int?, from host: String) -> Result<Part, PhotoFailure> {
            guard let head, let headers, let range = contentRange(headers), range.first == 0, range.last < head else {
                let given = headers.flatMap { soup_message_headers_get_one($0, "Content-Range") }.map {
                    String(cString: $0)
                }
                return .failure(
                    PhotoFailure(
                        .wrongPart,
                        detail: "\(host) sent part of the photo (“\(given ?? "no Content-Range")”) "
                            + "that is not the first \(head ?? 0) bytes asked for"))
            }
            return .success((range.total, range.last))
        }

        /// `wrong-part` when a 206's body (`count` bytes) is not as long as its `part`; nil when
        /// it is.
        static func check(body count: Int, of part: Part, from host: String) -> PhotoFailure? {
            guard count != part.last + 1 else { return nil }
            return PhotoFailure(.wrongPart, detail: "\(host) sent \(count) bytes for a range of \(part.last + 1)")
        }

        /// A 206's `Content-Range`: its first and last byte, and the whole size (0 for `*`).
        private static func contentRange(_ headers: OpaquePointer) -> (first: Int, last: Int, total: Int)? {
            var first: goffset = 0, last: goffset = 0, total: goffset = 0
            guard soup_message_headers_get_content_range(headers, &first, &last, &total) != 0, first >= 0, last >= first
            else {
                return nil
            }
            return (Int(first), Int(last), total < 0 ? 0 : Int(total))
        }
    }
}
