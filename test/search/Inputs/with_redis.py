#!/usr/bin/env python3
"""Runs a shell command beside a server of its own on a free loopback port.

    with_redis.py [--silent] DIR -- COMMAND...

Starts `redis-server` (no persistence, files in DIR) on a free port of
127.0.0.1, waits until it answers, runs COMMAND through bash with
REDIS_URL=redis://127.0.0.1:PORT and REDIS_PORT=PORT in its environment,
then stops the server and exits with COMMAND's status. With --silent the
"server" is a socket that accepts connections and never answers (what a
hung server looks like to a client). The server never outlives the
command, whatever it does.
"""
import os
import socket
import subprocess
import sys
import threading
import time


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def silent_server():
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", 0))
    s.listen(16)
    held = []

    def accept():
        while True:
            try:
                c, _ = s.accept()
            except OSError:
                return
            held.append(c)  # kept open, never read from or written to

    threading.Thread(target=accept, daemon=True).start()
    return s, s.getsockname()[1]


def main():
    args = sys.argv[1:]
    silent = args and args[0] == "--silent"
    if silent:
        args = args[1:]
    if len(args) < 3 or args[1] != "--":
        sys.exit(__doc__)
    workdir, command = args[0], " ".join(args[2:])
    os.makedirs(workdir, exist_ok=True)
    server = sock = None
    if silent:
        sock, port = silent_server()
    else:
        port = free_port()
        server = subprocess.Popen(
            ["redis-server", "--port", str(port), "--bind", "127.0.0.1",
             "--save", "", "--appendonly", "no", "--dir", workdir,
             "--logfile", os.path.join(workdir, "redis.log")],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(200):
            try:
                with socket.create_connection(("127.0.0.1", port), 0.1) as c:
                    c.sendall(b"PING\r\n")
                    if c.recv(16).startswith(b"+PONG"):
                        break
            except OSError:
                time.sleep(0.05)
        else:
            server.kill()
            sys.exit("with_redis.py: redis-server did not start")
    env = dict(os.environ, REDIS_URL="redis://127.0.0.1:%d" % port,
               REDIS_PORT=str(port))
    try:
        status = subprocess.call(["bash", "-c", command], env=env)
    finally:
        if server:
            server.terminate()
            try:
                server.wait(10)
            except subprocess.TimeoutExpired:
                server.kill()
        if sock:
            sock.close()
    sys.exit(status)


if __name__ == "__main__":
    main()
