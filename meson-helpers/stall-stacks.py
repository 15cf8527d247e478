#!/usr/bin/env python3
"""Names the frames of the stacks the app wrote during main-loop stalls, and tells what the
stalls were spent on.

The app writes them when CLASSIC_PHOTOS_STALL_STACKS names a file (see StallWatchdog): a few
samples of the main thread's stack during every ping answered 30 ms late or more, then a line
"stall N MS". This prints, for every stall of at least --least ms (50 unless told), its samples
with their frames named (the app's own by addr2line and `swift demangle`, the libraries' by
their exported names), innermost first, and then the functions of the app met most often
over all those samples.

    meson-helpers/stall-stacks.py STACKS-FILE [--least MS] [--frames N]
"""
import argparse
import collections
import re
import subprocess
import sys

FRAME = re.compile(r"^(?P<object>[^(\[]+)\((?P<symbol>[^)+]*)(?:\+(?P<offset>0x[0-9a-f]+))?\) ?\[(?P<address>0x[0-9a-f]+)\]$")
# Frames every sample has: the signal handler, the trampoline, the main loop's own dispatch.
DULL = ("on_sample", "__restore_rt", "killpg", "g_main_context_dispatch", "g_main_context_iterate",
        "g_main_loop_run", "g_application_run", "g_main_context_iteration", "__libc_start", "_start")


def read(path):
    """Samples by stall number, and each stall's length."""
    samples = collections.defaultdict(list)
    lengths = {}
    current = None
    process = 0
    with open(path, errors="replace") as stream:
        for line in stream:
            line = line.rstrip("\n")
            if line.startswith("process "):
                process = int(line.split()[1])
            elif line.startswith("sample "):
                stall, late = line.split()[1:3]
                current = ((process, int(stall)), float(late), [])
            elif line == "end" and current:
                samples[current[0]].append((current[1], current[2]))
                current = None
            elif line.startswith("stall "):
                _, stall, ms, _ = line.split()
                lengths[(process, int(stall))] = float(ms)
            elif current is not None:
                current[2].append(line)
    return samples, lengths


def name_frames(samples):
    """Names every frame: a map from the raw line to a readable name."""
    wanted = collections.defaultdict(set)
    names = {}
    for stacks in samples.values():
        for _, frames in stacks:
            for frame in frames:
                match = FRAME.match(frame)
                if not match:
                    names[frame] = frame
                elif match["symbol"]:
                    names[frame] = match["symbol"]
                elif match["offset"]:
                    wanted[match["object"]].add(match["offset"])
                else:
                    names[frame] = frame
    for binary, offsets in wanted.items():
        offsets = sorted(offsets)
        result = subprocess.run(["addr2line", "-f", "-e", binary] + offsets, capture_output=True, text=True)
        functions = result.stdout.splitlines()[0::2] if result.returncode == 0 else []
        demangled = subprocess.run(["swift", "demangle", "--simplified"], input="\n".join(functions),
                                   capture_output=True, text=True).stdout.splitlines()
        if len(demangled) != len(functions):
            demangled = functions
        short = binary.rsplit("/", 1)[-1]
        for offset, function in zip(offsets, demangled):
            if function == "??":
                names[(binary, offset)] = f"{short}+{offset}"
            elif short.startswith("classic-photos"):
                names[(binary, offset)] = f"{function} [{short}]"
            else:
                # A library without its symbols: the exported function before the address,
                # which the frame may only follow.
                names[(binary, offset)] = f"~{function} [{short}]"
    return names, wanted


def frame_name(frame, names):
    match = FRAME.match(frame)
    if match and not match["symbol"] and match["offset"]:
        return names.get((match["object"], match["offset"]), frame)
    return names.get(frame, frame)


# The app's frames every sample of the main thread has beneath it (the main loop running).
ROOT = ("run(_:)", "_start", "on_sample", "classic_photos_main", "closure #1 in  ", "specialized thunk for @callee_guaranteed () -> (@out A")


def kind(named):
    """What a sample's main thread was doing: its own code (the innermost function of the app's
    above the main loop), or GTK's work of a frame: drawing, laying out, asking the X server."""
    own = [n for n in named if "[classic-photos" in n and not any(r in n for r in ROOT)
           and not n.startswith(("closure", "partial apply", "thunk", "@objc", "specialized thunk"))
           and "MainLoopSource" not in n and "SignalConnection" not in n]
    if own:
        return "the app: " + own[-1].replace(" [classic-photos]", "")
    text = " ".join(named)
    if "gsk_renderer_render" in text:
        return "GTK drawing a frame (GSK)"
    if "xcb_wait_for_reply" in text or "_XReply" in text:
        return "waiting on the X server"
    if "measure" in text or "allocate" in text:
        return "GTK laying out widgets"
    return "elsewhere: " + (named[0] if named else "?")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("stacks")
    parser.add_argument("--least", type=float, default=50)
    parser.add_argument("--frames", type=int, default=18)
    options = parser.parse_args()
    samples, lengths = read(options.stacks)
    names, _ = name_frames(samples)
    counts = collections.Counter()
    kinds = collections.Counter()
    shown = 0
    for stall in sorted(lengths):
        if lengths[stall] < options.least:
            continue
        shown += 1
        print(f"== process {stall[0]}, stall {stall[1]}: {lengths[stall]:.0f} ms, {len(samples.get(stall, []))} samples")
        for late, frames in samples.get(stall, []):
            named = [frame_name(f, names) for f in frames]
            named = [n for n in named if not any(d in n for d in DULL)]
            print(f"  -- at {late:.0f} ms")
            for n in named[: options.frames]:
                print(f"     {n}")
            for n in set(named):
                if "[classic-photos" in n:
                    counts[n] += 1
        stall_kinds = collections.Counter(kind([n for n in (frame_name(f, names) for f in frames)
                                                if not any(d in n for d in DULL)])
                                          for _, frames in samples.get(stall, []))
        if stall_kinds:
            # A stall is put down to what most of its samples found the app doing (its
            # outermost own function above the main loop, when in its own code).
            kinds[stall_kinds.most_common(1)[0][0]] += 1
    print(f"\n{shown} stalls of {options.least:.0f} ms or more")
    if kinds:
        print("what they were spent on (what most of each stall's samples show):")
        for name, count in kinds.most_common():
            print(f"  {count:4d}  {name}")
    if counts:
        print("the app's functions met most often in their samples:")
        for name, count in counts.most_common(25):
            print(f"  {count:4d}  {name}")


if __name__ == "__main__":
    sys.exit(main())
