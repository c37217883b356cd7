"""The program that runs inside one host's namespace during a kernel-backend run.

``python -m bufferlab.kernel.agent`` reads its roles as one line of JSON on stdin, opens its
listening sockets, says ``ready`` on stderr, reads the start time ``t0`` (CLOCK_MONOTONIC ns,
the clock the engine's driver runs on) as the next line, plays its roles with the kernel's own
sockets on that schedule, and writes what it measured as JSON on stdout when the run ends.

Roles: ``tcp_sink`` / ``tcp_source`` (bulk or sized transfers; TCP_CONGESTION, TCP_MAXSEG,
socket buffers, SO_MAX_PACING_RATE for pacing; TCP_INFO sampled for the RTT), ``udp_sink`` / ``udp_source`` (CBR or Poisson,
bursts, TTL; one-way delay from the send time carried in each datagram), ``ping`` (ICMP echo
on a raw socket, as ``ping`` does: send time stamped before sending, receive time from the
kernel's SO_TIMESTAMPNS) and ``ballast`` (the real ``bufferlab ballast``, launched before the
start and released at the block's start). Every role stops at the end of the run: nothing outlives it.
"""

from __future__ import annotations

import json
import random
import re
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
from typing import Any

# struct tcp_info (include/uapi/linux/tcp.h) up to tcpi_total_rto_time: 8 u8, 24 u32 (to
# tcpi_total_retrans, index 8 + 23), then the 64-bit counters and the rest, ending with
# tcpi_total_rto (u16, index TCPI_TOTAL_RTO), tcpi_total_rto_recoveries (u16), tcpi_total_rto_time
# (u32): 248 bytes, every field at its natural alignment. tcpi_total_rto (Linux >= 6.7) counts
# every RTO expiry, repeated ones (backoff) and the SYN's included.
TCP_INFO_FMT = "8B24I4Q6IQ3Q2I2Q2I4I2HI"
TCP_INFO_LEN = struct.calcsize(TCP_INFO_FMT)
TCPI_TOTAL_RTO = 56
# Older kernels return fewer bytes: up to tcpi_total_rto's end or nothing of it.
_TOTAL_RTO_END = 242
SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)
ICMP_ECHO, ICMP_ECHO_REPLY = 8, 0
IP_RECVTTL = getattr(socket, "IP_RECVTTL", 12)
IP_TTL_CMSG = getattr(socket, "IP_TTL", 2)
# `bufferlab ballast`'s log line for each decision of its controller (cli/ballast.py).
BALLAST_DECISION = re.compile(r"^t=\s*([\d.]+)s\s+(\S+)\s+rate\s+([\d.]+) pps")
BALLAST_SENT = re.compile(r"^sent (\d+) packets, \d+ B in [\d.]+ s \(([\d.]+) pps\)")


class Clock:
    def __init__(self, t0_ns: int, end_ns: int, measure: list[int], sample_ns: int | None = None) -> None:
        self.t0, self.end, self.measure, self.sample_ns = t0_ns, end_ns, measure, sample_ns
        self.lock = threading.Lock()

    def now(self) -> int:
        """Run time in ns."""
        return time.monotonic_ns() - self.t0

    def left(self) -> float:
        return (self.end - self.now()) / 1e9

    def sleep_until(self, t_ns: int) -> bool:
        """Sleep until run time ``t_ns``; False if the run ends first."""
        while True:
            d = min(t_ns, self.end) - self.now()
            if d <= 0:
                return t_ns < self.end
            time.sleep(min(d / 1e9, 0.05))

    def in_window(self, t_ns: int) -> bool:
        return self.measure[0] <= t_ns < self.measure[1]

    def count(self, out: dict[str, Any], t_ns: int, n: int) -> None:
        """``n`` bytes delivered at ``t_ns``: in the window's total, and in the bin of the time
        series (``bins[k]``: bytes delivered in ``[k, k + 1)`` sample steps) when sampling."""
        with self.lock:
            if self.in_window(t_ns):
                out["window_bytes"] += n
            if self.sample_ns:
                bins = out.setdefault("bins", {})
                k = str(t_ns // self.sample_ns)
                bins[k] = bins.get(k, 0) + n


def _checksum(b: bytes) -> int:
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack(f"!{len(b) // 2}H", b))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


# How many full segments each read found waiting, counted up to READ_SEGMENTS_MAX: a prompt
# reader takes each segment as it comes; run.py judges the rest (read_backlog_check).
READ_SEGMENTS_MAX = 8


def read_backlog(out: dict[str, Any], n: int, mss: int, reordered: bool = False) -> None:
    """Count one read of ``n`` bytes in the window: by the full segments it found
    (``reads_by_segments[k]``, k up to READ_SEGMENTS_MAX), and the largest. A read after
    out-of-order segments arrived (``reordered``) is counted apart (``reads_after_reordering``):
    what it found may be the out-of-order queue a retransmission has just made readable at once,
    which any reader, however prompt, finds so (and which Linux acknowledged as a whole on the
    retransmission's arrival, as the simulator's receiver does)."""
    if reordered:
        out["reads_after_reordering"] = out.get("reads_after_reordering", 0) + 1
        return
    k = str(min(n // mss, READ_SEGMENTS_MAX))
    hist = out.setdefault("reads_by_segments", {})
    hist[k] = hist.get(k, 0) + 1
    out["read_max_bytes"] = max(out.get("read_max_bytes", 0), n)


def after_reordering(ooo_arrived: bool, last_was: bool, n: int, mss: int) -> bool:
    """Whether a read of ``n`` bytes may be the out-of-order queue released: out-of-order
    segments arrived since the read before, or that read was such a release and this one finds
    two segments or more (a recovery that fills several holes releases the queue hole by hole)."""
    return ooo_arrived or (last_was and n >= 2 * mss)


# tcpi_rcv_ooopack (Linux >= 5.4): the out-of-order packets the socket has received, the u32 at
# this byte of struct tcp_info (index 52 of TCP_INFO_FMT).
RCV_OOOPACK_AT = struct.calcsize(TCP_INFO_FMT[:TCP_INFO_FMT.index("4I2HI")])


def rcv_ooopack(s: socket.socket) -> int:
    """The socket's count of out-of-order packets received (0 on a kernel without it)."""
    b = s.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, RCV_OOOPACK_AT + 4)
    return struct.unpack_from("=I", b, RCV_OOOPACK_AT)[0] if len(b) >= RCV_OOOPACK_AT + 4 else 0


def tcp_sink(r: dict[str, Any], c: Clock, out: dict[str, Any]) -> None:
    srv = r["_socket"]
    srv.settimeout(0.1)
    out.update(total_bytes=0, window_bytes=0, first_ns=None, last_ns=None)
    while c.left() > 0:
        try:
            conn, _ = srv.accept()
        except (TimeoutError, socket.timeout):
            continue
        conn.settimeout(0.1)
        buf = bytearray(1 << 18)
        mss = conn.getsockopt(socket.IPPROTO_TCP, socket.TCP_MAXSEG) or 1448
        ooo = rcv_ooopack(conn)
        released = False
        while c.left() > 0:
            try:
                n = conn.recv_into(buf)
            except (TimeoutError, socket.timeout):
                continue
            except OSError:
                break
            if n == 0:
                break
            t = c.now()
            out["total_bytes"] += n
            c.count(out, t, n)
            before, ooo = ooo, rcv_ooopack(conn)
            released = after_reordering(ooo != before, released, n, mss)
            if c.in_window(t):
                read_backlog(out, n, mss, reordered=released)
            if out["first_ns"] is None:
                out["first_ns"] = t
            out["last_ns"] = t
        conn.close()
        if r.get("size") is not None:
            break


def _read_tcp_info(s: socket.socket) -> tuple[tuple[int, ...], bool]:
    """The unpacked struct tcp_info (zero-filled where the kernel's is shorter) and whether it
    has tcpi_total_rto."""
    b = s.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, TCP_INFO_LEN)
    return struct.unpack(TCP_INFO_FMT, b.ljust(TCP_INFO_LEN, b"\0")), len(b) >= _TOTAL_RTO_END


# SO_MAX_PACING_RATE (asm-generic/socket.h); Python's socket module does not name it.
SO_MAX_PACING_RATE = getattr(socket, "SO_MAX_PACING_RATE", 47)
# Any value but ~0 turns on TCP's internal pacing (sk_pacing_status = SK_PACING_NEEDED, as BBR
# sets it); 2^64 - 2 B/s caps nothing.
NO_PACING_CAP = struct.pack("=Q", 2**64 - 2)


def tune(s: socket.socket, r: dict[str, Any]) -> None:
    """The sending socket's options: congestion control, send buffer, pacing."""
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, r["cc"].encode())
    if r.get("sndbuf"):
        s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, r["sndbuf"])
    if r.get("pacing"):
        s.setsockopt(socket.SOL_SOCKET, SO_MAX_PACING_RATE, NO_PACING_CAP)


def tcp_source(r: dict[str, Any], c: Clock, out: dict[str, Any]) -> None:
    out.update(samples=[], start_ns=None, retransmits=0, retrans_at=[], sent_bytes=0, timeouts=0, rto_at=None)
    if not c.sleep_until(r["start_ns"]):
        return
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    tune(s, r)
    if r.get("mss"):
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_MAXSEG, r["mss"])
    out["start_ns"] = c.now()
    s.settimeout(max(c.left(), 0.01))
    try:
        s.connect((r["dst"], r["port"]))
    except OSError as e:
        out["error"] = f"connect: {e}"
        return
    done = threading.Event()

    def sample() -> None:
        # TCP_INFO every 10 ms: the kernel's smoothed RTT (tcpi_rtt, µs) and window.
        while not done.wait(0.01):
            try:
                v, has_rto = _read_tcp_info(s)
            except OSError:
                return
            rtt_us, cwnd, unacked, retrans, mss = v[8 + 15], v[8 + 18], v[8 + 4], v[8 + 23], v[8 + 2]
            if retrans != out["retransmits"]:  # (time, total so far): the window's share later
                out["retrans_at"].append((c.now(), retrans))
            out["retransmits"] = retrans
            if has_rto:
                if out["rto_at"] is None:
                    out["rto_at"] = []
                if v[TCPI_TOTAL_RTO] != out["timeouts"]:
                    out["rto_at"].append((c.now(), v[TCPI_TOTAL_RTO]))
                out["timeouts"] = v[TCPI_TOTAL_RTO]
            if unacked > 0:
                out["samples"].append((c.now(), rtt_us * 1000, cwnd * mss))

    th = threading.Thread(target=sample, daemon=True)
    th.start()
    chunk = b"\0" * 65536
    left = r.get("size")
    s.settimeout(0.1)
    try:
        while c.left() > 0 and (left is None or left > 0):
            part = chunk if left is None or left >= len(chunk) else chunk[:left]
            try:
                n = s.send(part)
            except (TimeoutError, socket.timeout):
                continue
            out["sent_bytes"] += n
            if left is not None:
                left -= n
        if left == 0:
            s.shutdown(socket.SHUT_WR)
            while c.left() > 0:  # wait for the receiver to have it all (it closes then)
                try:
                    if s.recv(1) == b"":
                        break
                except (TimeoutError, socket.timeout):
                    continue
    except OSError as e:
        out["error"] = f"send: {e}"
    finally:
        done.set()
        th.join()
        s.close()


def udp_sink(r: dict[str, Any], c: Clock, out: dict[str, Any]) -> None:
    s = r["_socket"]
    s.settimeout(0.1)
    s.setsockopt(socket.IPPROTO_IP, IP_RECVTTL, 1)
    out.update(total_bytes=0, window_bytes=0, owd_sum_ns=0, owd_n=0, packets=0, last_ns=None, ttls={})
    buf = bytearray(65536)
    while c.left() > 0:
        try:
            n, anc, _, _ = s.recvmsg_into([buf], 64)
        except (TimeoutError, socket.timeout):
            continue
        t = c.now()
        # Goodput counts payload, as the simulator's UDP sink does (size - 28 B of headers).
        out["total_bytes"] += n
        out["packets"] += 1
        out["last_ns"] = t
        for level, kind, val in anc:  # the TTL the packet arrived with (IP_RECVTTL, ip(7))
            if level == socket.IPPROTO_IP and kind == IP_TTL_CMSG and val:
                ttl = str(int.from_bytes(val[:4], sys.byteorder) if len(val) >= 4 else val[0])
                out["ttls"][ttl] = out["ttls"].get(ttl, 0) + 1
        c.count(out, t, n)
        if c.in_window(t):
            if n >= 8:
                sent = struct.unpack_from("!q", buf)[0]
                out["owd_sum_ns"] += t - sent
                out["owd_n"] += 1


def udp_source(r: dict[str, Any], c: Clock, out: dict[str, Any]) -> None:
    out.update(sent=0)
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.IPPROTO_IP, socket.IP_TTL, r["ttl"])
    rng = random.Random(r["seed"])
    payload = bytearray(r["payload"])
    gap = 1e9 / r["rate_pps"]
    burst = r.get("burst")
    t = float(r["start_ns"])
    stop = min(r.get("stop_ns") or c.end, c.end)
    k = 0
    while t < stop and c.sleep_until(int(t)):
        if len(payload) >= 8:  # the send time, for the one-way delay
            struct.pack_into("!q", payload, 0, c.now())
        try:
            s.sendto(payload, (r["dst"], r["port"]))
            out["sent"] += 1
        except OSError:
            pass  # a full socket buffer: the packet is lost, as on any host
        k += 1
        if burst:
            n, every = burst
            t = t + gap if k % n else (t - (n - 1) * gap) + every
        elif r["arrivals"] == "poisson":
            t += rng.expovariate(1.0) * gap
        else:
            t += gap
    s.close()


def ping(r: dict[str, Any], c: Clock, out: dict[str, Any]) -> None:
    out.update(sent=0, rtts=[])
    s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
    s.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
    s.settimeout(0.05)
    ident = r["ident"]
    sent_at: dict[int, tuple[int, int]] = {}
    stop = min(r.get("stop_ns") or c.end, c.end)

    def receive() -> None:
        while c.left() > 0:
            try:
                data, anc, _, _ = s.recvmsg(2048, 64)
            except (TimeoutError, socket.timeout):
                continue
            ihl = (data[0] & 0x0F) * 4
            typ, _, _, rid, seq = struct.unpack_from("!BBHHH", data, ihl)
            if typ != ICMP_ECHO_REPLY or rid != ident or seq not in sent_at:
                continue
            rx = time.time_ns()
            for level, kind, val in anc:
                if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS:
                    sec, nsec = struct.unpack("qq", val[:16])
                    rx = sec * 1_000_000_000 + nsec
            t_rel, tx = sent_at.pop(seq)
            out["rtts"].append((t_rel, rx - tx))

    th = threading.Thread(target=receive, daemon=True)
    th.start()
    pad = b"\0" * r["payload"]  # the IP packet: 20 B header, 8 B ICMP header, this
    t, seq = r["start_ns"], 0
    while t < stop and c.sleep_until(t):
        seq = (seq + 1) & 0xFFFF
        body = pad
        hdr = struct.pack("!BBHHH", ICMP_ECHO, 0, 0, ident, seq)
        msg = struct.pack("!BBHHH", ICMP_ECHO, 0, _checksum(hdr + body), ident, seq) + body
        sent_at[seq] = (c.now(), time.time_ns())
        try:
            s.sendto(msg, (r["dst"], 0))
            out["sent"] += 1
        except OSError:
            sent_at.pop(seq, None)
        t += r["interval_ns"]
    th.join()
    s.close()


def ballast(r: dict[str, Any], c: Clock, out: dict[str, Any]) -> None:
    """The real tool, ``bufferlab ballast``, in this host's namespace with the block's options:
    what runs here is what a person runs on a host (its ``--auto`` reads this namespace's own
    connections with ``ss``). Launched before the run (``launch_ballast``) so that its start-up
    does not delay it, it starts at the block's start and stops at its stop or the run's end."""
    p: subprocess.Popen = r["_proc"]
    out.update(sent=0, pps=None, decisions=[], argv=r["_argv"][3:])
    p.stdin.write(f"{c.t0 + r['start_ns']}\n")
    p.stdin.close()
    err_lines: list[str] = []

    def read_log() -> None:  # decisions as they come (a full pipe would stall the tool)
        for line in p.stderr:
            m = BALLAST_DECISION.match(line)
            if m:  # stamped when read: the tool's own clock starts at its start
                out["decisions"].append((c.now(), m.group(2), float(m.group(3))))
            else:
                err_lines.append(line)

    th = threading.Thread(target=read_log, daemon=True)
    th.start()
    while p.poll() is None:
        if c.left() <= 0:  # the run ended early (`bufferlab shell` exited): stop it as Ctrl-C would
            p.send_signal(signal.SIGTERM)
            break
        time.sleep(0.05)
    try:
        p.wait(timeout=5)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
    stdout = p.stdout.read()  # one line: the tool's summary
    th.join(1)
    m = BALLAST_SENT.search(stdout or "")
    if m:
        out["sent"], out["pps"] = int(m.group(1)), float(m.group(2))
    if p.returncode != 0:
        out["error"] = f"bufferlab ballast exited {p.returncode}: {''.join(err_lines).strip()[-300:]}"


def launch_ballast(r: dict[str, Any], duration_ns: int) -> None:
    """Start the tool and wait until it has set up (it then waits for its start time)."""
    stop = min(r.get("stop_ns") or duration_ns, duration_ns)
    argv = [sys.executable, "-m", "bufferlab", "ballast", *r["args"], "--duration", f"{max(stop - r['start_ns'], 1)}ns", "--start-at-stdin"]
    p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = p.stderr.readline()
    if line.strip() != "ready":
        p.kill()
        raise RuntimeError(f"bufferlab ballast did not start: {(line + p.stderr.read()).strip()[-300:]}")
    r["_proc"], r["_argv"] = p, argv


# At most this many transfers of one web flow at once (each a thread here).
MAX_OPEN_TRANSFERS = 256


def _tcp_info(s: socket.socket) -> tuple[int, int, int, int, int | None] | None:
    """(srtt ns, cwnd bytes, unacked segments, total retransmissions, total RTO expiries or None
    where the kernel lacks the field) from TCP_INFO."""
    try:
        v, has_rto = _read_tcp_info(s)
    except OSError:
        return None
    return v[8 + 15] * 1000, v[8 + 18] * v[8 + 2], v[8 + 4], v[8 + 23], v[TCPI_TOTAL_RTO] if has_rto else None


def _read_request(conn: socket.socket) -> int | None:
    """A transfer's size asked for (8 B), or None once the client has closed its side."""
    want = b""
    while len(want) < 8:
        part = conn.recv(8 - len(want))
        if not part:
            return None
        want += part
    return struct.unpack("!q", want)[0]


def tcp_server(r: dict[str, Any], c: Clock, out: dict[str, Any]) -> None:
    """The data side of web and on/off transfers: a connection asks for a size (8 B) and gets that
    many bytes; a web connection is then closed, an on/off one (``persistent``) asks again after
    its idle time, until the client closes it."""
    srv = r["_socket"]
    srv.settimeout(0.1)
    out.update(samples=[], retransmits=0, retrans_at=[], timeouts=0, rto_at=None)
    lock = threading.Lock()

    def serve(conn: socket.socket) -> None:
        counted = [0, 0]  # the connection's retransmissions and timeouts already counted

        def count() -> None:
            # send() returns once the bytes are in the socket's buffer, before they are sent, let
            # alone acknowledged: a transfer's retransmissions and timeouts all come after it.
            # Counted when the client, having read every byte, asks for the next transfer or
            # closes its side (its request or FIN follows its last ACK).
            info = _tcp_info(conn)
            if not info:
                return
            with lock:
                if info[3] > counted[0]:
                    out["retransmits"] += info[3] - counted[0]
                    out["retrans_at"].append((c.now(), out["retransmits"]))
                    counted[0] = info[3]
                if info[4] is not None:
                    if out["rto_at"] is None:
                        out["rto_at"] = []
                    if info[4] > counted[1]:
                        out["timeouts"] += info[4] - counted[1]
                        out["rto_at"].append((c.now(), out["timeouts"]))
                        counted[1] = info[4]

        try:
            tune(conn, r)
            conn.settimeout(max(c.left(), 0.01))
            chunk = b"\0" * 65536
            last = 0
            while (left := _read_request(conn)) is not None:
                count()
                while left > 0 and c.left() > 0:
                    n = conn.send(chunk[: min(left, len(chunk))])
                    left -= n
                    t = c.now()
                    if t - last >= 10_000_000:  # TCP_INFO at most every 10 ms per connection
                        last = t
                        info = _tcp_info(conn)
                        if info and info[2] > 0:
                            with lock:
                                out["samples"].append((t, info[0], info[1]))
                if not r.get("persistent"):
                    conn.shutdown(socket.SHUT_WR)
                    while c.left() > 0 and conn.recv(4096):
                        pass
                    break
            count()
        except (TimeoutError, socket.timeout):
            count()  # the run ended with the connection open
        except OSError:
            pass
        finally:
            conn.close()

    while c.left() > 0:
        try:
            conn, _ = srv.accept()
        except (TimeoutError, socket.timeout):
            continue
        threading.Thread(target=serve, args=(conn,), daemon=True).start()


def tcp_client(r: dict[str, Any], c: Clock, out: dict[str, Any]) -> None:
    """Web (Poisson arrivals, each transfer a new connection) or on/off (one transfer, an idle
    time, the next, all on one connection, as the simulator's sender keeps one): each transfer
    asks the server for its size. The arrivals, sizes and idle times are the simulator's own draws
    for the run's seed (``sizes``, with ``arrivals_ns`` for web, ``idles_ns`` for on/off:
    kernel/plan.py), taken in order."""
    out.update(transfers=[], window_bytes=0)
    lock = threading.Lock()
    open_now = threading.Semaphore(MAX_OPEN_TRANSFERS)

    def connect() -> socket.socket:
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, r["cc"].encode())  # as main()'s listeners
        if r.get("rcvbuf"):
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, r["rcvbuf"])
        s.settimeout(max(c.left(), 0.01))
        s.connect((r["dst"], r["port"]))
        return s

    def fetch(s: socket.socket, size: int, row: dict[str, Any]) -> None:
        s.sendall(struct.pack("!q", size))
        got, buf = 0, bytearray(1 << 16)
        while got < size and c.left() > 0:
            n = s.recv_into(buf, min(len(buf), size - got))
            if n == 0:
                break
            got += n
            c.count(out, c.now(), n)
        if got >= size:
            row["end_ns"] = c.now()

    def begin(size: int) -> dict[str, Any]:
        row = {"size": size, "start_ns": c.now(), "end_ns": None}
        with lock:
            out["transfers"].append(row)
        return row

    def transfer(size: int) -> None:
        row = begin(size)
        s = None
        try:
            s = connect()
            fetch(s, size, row)
        except OSError:
            pass
        finally:
            if s is not None:
                s.close()
            open_now.release()

    sizes = r["sizes"]
    if r["mode"] == "poisson":
        running = []
        for t, size in zip(r["arrivals_ns"], sizes):
            if not c.sleep_until(t):
                break
            open_now.acquire()
            running.append(threading.Thread(target=transfer, args=(size,), daemon=True))
            running[-1].start()
        # The transfers still open run to the end of the run: returning now would let the host's
        # process report and exit with them (when it has no other role) and cut them short.
        deadline = time.monotonic() + max(c.left(), 0) + 1.0
        for th in running:
            th.join(max(deadline - time.monotonic(), 0))
    else:
        t = r["start_ns"]
        conn = None
        try:
            for size, idle in zip(sizes, r["idles_ns"]):
                if not c.sleep_until(t):
                    return
                row = begin(size)
                if conn is None:
                    conn = connect()
                fetch(conn, size, row)
                if row["end_ns"] is None:
                    return
                t = c.now() + idle
            if not c.sleep_until(t):  # every drawn transfer done and its idle time over
                return
        except OSError:
            return
        finally:
            if conn is not None:
                conn.close()
    if not r["complete"]:
        out["error"] = f"the run outlasted the simulator's {len(sizes)} drawn transfers (kernel/plan.py MAX_DRAWN_TRANSFERS)"


ROLES = {"tcp_server": tcp_server, "tcp_client": tcp_client, "tcp_sink": tcp_sink, "tcp_source": tcp_source, "udp_sink": udp_sink, "udp_source": udp_source, "ping": ping, "ballast": ballast}


def main() -> None:
    spec = json.loads(sys.stdin.readline())
    # Listening sockets first, before the start: a source at time 0 finds its sink ready.
    for r in spec["roles"]:
        if r["role"] in ("tcp_sink", "tcp_server"):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if r.get("rcvbuf"):
                s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, r["rcvbuf"])
            # An accepted connection takes its listener's congestion control if one was set
            # (tcp_ca_openreq_child), else the namespace's default, which a new namespace copies
            # from the host's (bbr on some machines; a namespace may not set a restricted one
            # itself). A connection established under BBR keeps BBR's pacing flag
            # (SK_PACING_NEEDED, set by bbr_init) after tune() switches it to Cubic, and TCP
            # then paces it at 2 cwnd / SRTT in slow start, which the scenario did not ask for.
            # So no socket of a flow runs the host's default, receivers included.
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, r["cc"].encode())
            s.bind(("0.0.0.0", r["port"]))
            s.listen(16)
            r["_socket"] = s
        elif r["role"] == "udp_sink":
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
            s.bind(("0.0.0.0", r["port"]))
            r["_socket"] = s
        elif r["role"] == "ballast":
            launch_ballast(r, spec["duration_ns"])
    # Ready; the start time comes once every host is (nothing comes if the parent died).
    print("ready", file=sys.stderr, flush=True)
    line = sys.stdin.readline()
    if not line.strip():
        return
    c = Clock(int(line), spec["duration_ns"], spec["measure_ns"], spec.get("sample_ns"))
    # SIGUSR1: the network stopped early (`bufferlab shell` exited); end now and report.
    signal.signal(signal.SIGUSR1, lambda *_: setattr(c, "end", c.now()))
    results: dict[str, Any] = {}
    threads = []
    for i, r in enumerate(spec["roles"]):
        out: dict[str, Any] = {"flow": r["flow"], "role": r["role"]}
        results[str(i)] = out
        th = threading.Thread(target=_guard, args=(ROLES[r["role"]], r, c, out), daemon=True)
        th.start()
        threads.append(th)
    for th in threads:
        th.join(max(c.left(), 0) + 2.0)
    json.dump(list(results.values()), sys.stdout)
    sys.stdout.flush()


def _guard(f, r: dict[str, Any], c: Clock, out: dict[str, Any]) -> None:
    try:
        f(r, c, out)
    except Exception as e:  # reported with the flow, never a silent thread death
        out["error"] = f"{type(e).__name__}: {e}"


if __name__ == "__main__":
    main()
