"""An agent's command that has got hold of the console's token (an attack test's premise) and
tries to answer another session's question through the console's WebSocket, with nothing but
Python's standard library.

Usage: intruder.py PORT TOKEN SESSION
Prints what it sent, or why it could not.
"""

import base64
import json
import os
import socket
import struct
import sys
import time

port, token, session = sys.argv[1], sys.argv[2], sys.argv[3]
connection = socket.create_connection(("127.0.0.1", int(port)), timeout=20)
key = base64.b64encode(os.urandom(16)).decode()
connection.sendall(
    (
        f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
        f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
        f"Sec-WebSocket-Protocol: nodwyn.{token}\r\n\r\n"
    ).encode()
)
waiting = b""
while b"\r\n\r\n" not in waiting:
    waiting += connection.recv(4096)
head, waiting = waiting.split(b"\r\n\r\n", 1)
if b" 101 " not in head.split(b"\r\n")[0]:
    sys.exit("refused: " + head.split(b"\r\n")[0].decode())


def send(message):
    data = json.dumps(message).encode()
    mask = os.urandom(4)
    size = len(data)
    header = bytes([0x81]) + (
        bytes([0x80 | size]) if size < 126 else bytes([0x80 | 126]) + struct.pack(">H", size)
    )
    connection.sendall(header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data)))


def receive():
    global waiting
    while True:
        if len(waiting) >= 2:
            size, start = waiting[1] & 0x7F, 2
            if size == 126:
                size, start = struct.unpack(">H", waiting[2:4])[0], 4
            elif size == 127:
                size, start = struct.unpack(">Q", waiting[2:10])[0], 10
            if len(waiting) >= start + size:
                frame, waiting = waiting[start : start + size], waiting[start + size :]
                return json.loads(frame)
        more = connection.recv(65536)
        if not more:
            sys.exit("closed")
        waiting += more


send({"jsonrpc": "2.0", "id": 1, "method": "session.subscribe", "params": {"session": session}})
deadline = time.time() + 20
while time.time() < deadline:
    message = receive()
    if message.get("method") == "approval.request":
        send({"jsonrpc": "2.0", "id": message["id"], "result": {"decision": "allow"}})
        print("sent an allow for " + message["params"]["action"])
        time.sleep(1)
        break
