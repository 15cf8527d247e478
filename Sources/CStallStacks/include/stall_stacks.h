// Where the main thread is while the main loop does not answer: a diagnostic for stalls.
//
// The stall watchdog (PhotoPipeline's StallWatchdog) notices a main loop that has not answered
// its ping in time; with CLASSIC_PHOTOS_STALL_STACKS naming a file, it has the main thread write
// its own call stack there (a signal the main thread takes, as a sampling profiler does), a few
// times during each stall. meson-helpers/stall-stacks.py names the frames.
#pragma once

#include <stdbool.h>

/// Takes the calling thread as the one to sample, and opens `path` (appended to) for the
/// stacks. False if the file cannot be opened or the signal not taken.
bool cp_stall_stacks_install(const char *path);

/// Has the thread taken at install write its call stack, after a line "sample `label`".
/// Nothing when not installed. Called from another thread.
void cp_stall_stacks_sample(const char *label);

/// Writes one line to the file (from any thread): what a stall came to, after its samples.
void cp_stall_stacks_note(const char *line);
