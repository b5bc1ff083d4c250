#!/usr/bin/env python3
"""Seed capture for the TDS fuzz targets: a TCP relay between real clients and `latchkey serve`
that records what each client sends, then splits the recordings into fuzz seeds.

    python3 fuzz/tools/capture.py LISTEN_PORT SERVER_PORT OUT_DIR   # relay until killed
    python3 fuzz/tools/capture.py --split OUT_DIR CORPUS_DIR        # recordings -> seeds

Each connection's client-to-server byte stream is OUT_DIR/conn-N.bin. --split writes:
the whole stream (tds_packets), each reassembled message's payload under the target of its
packet type (prelogin 0x12 before login, login7 0x10, sqlbatch 0x01, rpc 0x03, tm 0x0E), and
the run of PRELOGIN packets after the first PRELOGIN message (the TLS handshake, tls_prelogin).
A TLS-encrypted stream is recorded as it is (only its handshake part is useful as a seed).
"""
import hashlib, os, socket, sys, threading

def relay(src, dst, log):
    try:
        while True:
            b = src.recv(65536)
            if not b:
                break
            if log is not None:
                log.write(b); log.flush()
            dst.sendall(b)
    except OSError:
        pass
    finally:
        for s in (src, dst):
            try: s.shutdown(socket.SHUT_RDWR)
            except OSError: pass

def serve(listen_port, server_port, out):
    os.makedirs(out, exist_ok=True)
    ls = socket.socket(); ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(('127.0.0.1', listen_port)); ls.listen(64)
    n = 0
    while True:
        c, _ = ls.accept()
        s = socket.create_connection(('127.0.0.1', server_port))
        log = open(os.path.join(out, 'conn-%d.bin' % n), 'wb'); n += 1
        threading.Thread(target=relay, args=(c, s, log), daemon=True).start()
        threading.Thread(target=relay, args=(s, c, None), daemon=True).start()

def packets(stream):
    pos = 0
    while pos + 8 <= len(stream):
        ty, st = stream[pos], stream[pos + 1]
        ln = int.from_bytes(stream[pos + 2:pos + 4], 'big')
        if ln < 8 or pos + ln > len(stream):
            return
        yield ty, st, stream[pos:pos + ln]
        pos += ln

def put(corpus, target, data):
    if not data:
        return
    d = os.path.join(corpus, target); os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, hashlib.sha1(data).hexdigest()), 'wb') as f:
        f.write(data)

def split(out, corpus):
    names = {0x10: 'login7', 0x01: 'sqlbatch', 0x03: 'rpc', 0x0E: 'tm'}
    for fn in sorted(os.listdir(out)):
        stream = open(os.path.join(out, fn), 'rb').read()
        put(corpus, 'tds_packets', stream[:65536])
        msg, msg_type, prelogins, tls = b'', None, 0, b''
        for ty, st, pkt in packets(stream):
            if ty == 0x12:
                prelogins += 1
                if prelogins > 1:
                    tls += pkt
            elif tls:
                put(corpus, 'tls_prelogin', tls); tls = b''
            msg += pkt[8:]; msg_type = ty
            if st & 1:
                target = 'prelogin' if ty == 0x12 and prelogins == 1 else names.get(ty)
                if target:
                    put(corpus, target, msg)
                msg = b''
        if tls:
            put(corpus, 'tls_prelogin', tls)

if __name__ == '__main__':
    if sys.argv[1] == '--split':
        split(sys.argv[2], sys.argv[3])
    else:
        serve(int(sys.argv[1]), int(sys.argv[2]), sys.argv[3])
