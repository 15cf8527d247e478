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

/// Says why the helper cannot go on (on standard error, which the app reads when a helper
/// never becomes ready) and exits: without its limits and filter a helper does not decode.
func refuse(_ what: String, _ code: Int32) -> Never {
    FileHandle.standardError.write(
        Data("classic-photos-decoder: \(what) failed (\(String(cString: strerror(code))))\n".utf8))
    exit(3)
}

// Standard error stays open only while the helper confines itself; then it goes to /dev/null,
// opened now because afterwards nothing may be opened for writing.
let nothing = open("/dev/null", O_WRONLY | O_CLOEXEC)
guard nothing >= 0 else { refuse("opening /dev/null", errno) }

// The address-space limit, unless a sanitizer's runtime is in the process: those reserve
// terabytes of address space for their shadow memory.
var addressSpace: UInt64 = 0
if let index = arguments.firstIndex(of: "--limit-memory"), index + 1 < arguments.count,
    let bytes = UInt64(arguments[index + 1])
{
    let sanitized = ["__tsan_init", "__asan_init"].contains { (name: String) in
        dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) != nil
    }
    if !sanitized {
        let status = cp_sandbox_limit_memory(bytes)
        guard status == 0 else { refuse("limiting its memory", status) }
        addressSpace = bytes
    }
    // No one allocation of FFmpeg's larger than an eighth of that: a hostile video's atom
    // sizes ask for gigabytes, which fail there rather than at the address-space limit.
    VideoFrame.limitAllocations(bytes / 8)
    // No file it writes (pixels in a memfd) larger than the memory it may have, and few
    // descriptors: together they bound what memfds it could fill without mapping them.
    let status = cp_sandbox_limit_files(bytes, 64)
    guard status == 0 else { refuse("limiting its files", status) }
}

// A session of its own, with no controlling terminal to type into. (bubblewrap's
// `--new-session` gives one to the sandbox's first process; the helper leads its own.)
_ = setsid()
// Linux schedules a session as a group with a whole program's weight: niced to 10 (a tenth
// of the weight) it takes the cores when the app leaves them idle, and little of them from the
// app's main loop when it needs them. Where sessions are not grouped (no autogroups, or the
// desktop's own CPU cgroups), the helper's threads are what is weighed: they are niced too.
_ = cp_sandbox_lower_autogroup(10)
_ = cp_nice_thread(10)

var message: UnsafePointer<CChar>?
let filterStatus = cp_sandbox_apply(&message)
if filterStatus != 0 { refuse(message.map { String(cString: $0) } ?? "seccomp", -filterStatus) }
dup2(nothing, 1)
dup2(nothing, 2)
close(nothing)

DecoderHelper.serve(
    socket: 3, filtered: true, addressSpace: addressSpace,
    faults: AppConfiguration.current.testSwitches.decoderFaults)
