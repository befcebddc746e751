"""Run a command in a pseudo-terminal; answer a prompt once it appears.

usage: pty-run.py <wait-for-text> <reply-line> <timeout-s> <command> [args…]
Prints everything the command wrote; exits with its exit code (124 on timeout).
"""
import os, pty, select, sys, time

wait_for, reply, timeout = sys.argv[1].encode(), sys.argv[2], float(sys.argv[3])
pid, fd = pty.fork()
if pid == 0:
    os.execvp(sys.argv[4], sys.argv[4:])
out, answered, deadline = b'', False, time.time() + timeout
while True:
    if time.time() > deadline:
        os.kill(pid, 9)
        sys.stdout.write(out.decode(errors='replace'))
        sys.exit(124)
    ready, _, _ = select.select([fd], [], [], 0.2)
    if ready:
        try:
            chunk = os.read(fd, 4096)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
        if not answered and wait_for in out:
            answered = True
            os.write(fd, (reply + '\r').encode())
_, status = os.waitpid(pid, 0)
sys.stdout.write(out.decode(errors='replace'))
sys.exit(os.waitstatus_to_exitcode(status))
