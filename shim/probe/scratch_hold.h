#pragma once
/* The run's scratch, held across an exec (probe.c): called by the exec hook (hook.c) just before
 * the real exec. A process whose next image keeps the scratch as TMPDIR, and which closed the
 * scratch lock edashim handed down (Python's close_fds does, in the child, before the exec),
 * takes it again at the same number and open across the exec: no moment then passes between
 * this image's end and the next one's own lock (hold_scratch) in which the scratch is unheld and
 * a sweep or the run's finish could remove it under the new image. errno is left as it was. */
void edashim_keep_scratch_held(char* const* envp);
