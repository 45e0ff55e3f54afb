#!/usr/bin/env python3
# A terminal for the end-to-end tests: an interactive bash (job control on) in a pty of its
# own, driven by the steps given as arguments, each waited for by state, never by time:
#   type:TEXT         types TEXT and Enter
#   send:BYTES        writes BYTES (Python escapes: \x03 is Ctrl-C, \x1a Ctrl-Z)
#   out:TEXT          waits until the terminal has shown TEXT (20 s at most)
#   file:PATH:TEXT    waits until file PATH contains TEXT (20 s at most)
#   close             closes the terminal (a hangup, as closing a terminal window)
# Prints what the terminal showed, then "shell-status N" (the shell's exit status, 128+N for
# signal N). Exits 3 when a wait times out.
import os, pty, select, sys, time

pid, fd = pty.fork()
if pid == 0:
    os.environ["PS1"] = "$ "
    os.execvp("bash", ["bash", "--norc", "--noprofile", "-i"])
shown = b""

def pump(seconds):
    global shown
    r, _, _ = select.select([fd], [], [], seconds)
    if r:
        try:
            data = os.read(fd, 4096)
        except OSError:
            data = b""
        shown += data

def wait(done, what):
    end = time.time() + 20
    while not done():
        if time.time() > end:
            sys.stdout.write(shown.decode(errors="replace"))
            sys.stderr.write("term_driver: timed out waiting for %s\n" % what)
            os.kill(pid, 9)
            sys.exit(3)
        pump(0.05)

def file_has(path, text):
    try:
        return text in open(path).read()
    except OSError:
        return False

pump(0.2)
for step in sys.argv[1:]:
    kind, _, arg = step.partition(":")
    if kind == "type":
        os.write(fd, arg.encode() + b"\n")
    elif kind == "send":
        os.write(fd, arg.encode().decode("unicode_escape").encode("latin-1"))
    elif kind == "out":
        wait(lambda: arg.encode() in shown, repr(arg))
    elif kind == "file":
        path, _, text = arg.partition(":")
        wait(lambda: file_has(path, text), "%r in %s" % (text, path))
    elif kind == "close":
        os.close(fd)
        fd = None
        break
if fd is not None:
    while True:
        done, st = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        pump(0.05)
else:
    _, st = os.waitpid(pid, 0)
sys.stdout.write(shown.decode(errors="replace"))
print("\nshell-status", os.waitstatus_to_exitcode(st))
