#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Write the seed inputs of rdma_rec_fuzz to corpus/rdma_rec/: a few small
# valid RDMA v3 records (the fuzzer zero pads them to 512 bytes) and one
# connect private data block (uapi/linux/goblin_rdma.h).
#
#   ./rdma_rec_seeds.py     (rewrites the committed seeds)

import os
import struct


def hdr(rtype, body, credits=4, tag=7):
    return struct.pack('<BBHHHQ', rtype, 0, credits, len(body), 0, tag) + body


def pad(rec):
    return rec + bytes(512 - len(rec))


def key(k):
    return bytes([len(k)]) + k


seeds = {
    'get': hdr(0x10, struct.pack('<HHI', 2, 0, 0) + key(b'foo') +
               key(b'user:1')),
    'set': hdr(0x11, struct.pack('<IIqQQQB7x', 0, 5, 0, 0, 3,
                                 0x7f0000100000, 3) + b'foo'),
    'touch': hdr(0x13, struct.pack('<qQB7x', 60, 0, 3) + b'foo'),
    'flow': hdr(0x20, struct.pack('<QQ', 0x5, 0), tag=0),
    'value': hdr(0x90, struct.pack('<HBxIQQQ', 1, 3, 0, 3, 9, 0) + b'foo'),
    'bulk': hdr(0x91, struct.pack('<HHIQH6x', 2, 1, 3, 0, 1)),
    'error': hdr(0x94, struct.pack('<II', 1, 0) + b'bad key\0'),
    'connect': struct.pack('<IHHIHHIIQQ16x', 0x33524247, 3, 0, 65536, 8,
                           64, 0x1234, 0, 0x7f0000000000, 8 << 20),
    # revision 3.1: value CRCs asked for (connect.flags CRC), VALUE with
    # vflags CRC and its crc, the last BULK with LAST|CRC and the same crc
    'connect_crc': struct.pack('<IHHIHHIIQQ16x', 0x33524247, 3, 1, 65536,
                               8, 64, 0x1234, 0, 0x7f0000000000, 8 << 20),
    'value_crc': hdr(0x90, struct.pack('<HBBIQQII', 1, 3, 1, 0, 9, 9,
                                       0xe3069283, 0) + b'foo'),
    'bulk_crc': hdr(0x91, struct.pack('<HHIQH2xI', 2, 3, 9, 0, 1,
                                      0xe3069283)),
    # revision 3.2: folded responses asked for with 4096-byte receive
    # buffers; an inline VALUE (record + 3 bytes, END folded), a VALUE
    # with its first BULK (window 1, LAST) and END folded, a BULK with
    # END folded
    'connect_fold': struct.pack('<IHHIHHIIQQ16x', 0x33524247, 3, 3, 65536,
                                8, 64, 0x1234, 4096, 0x7f0000000000,
                                8 << 20),
    'value_inline': pad(hdr(0x90, struct.pack('<HBBIQQII', 0, 3, 0x0a, 0,
                                              3, 9, 0, 0) + b'foo' +
                            bytes(277) + struct.pack('<HHI', 1, 0, 0)))
    + b'abc',
    'value_fold': hdr(0x90, struct.pack('<HBBIQQII', 0, 3, 0x0c, 0, 9, 9,
                                        0, 0) + b'foo' + bytes(253) +
                      struct.pack('<HHIQH2xI', 1, 1, 9, 0, 0, 0) +
                      struct.pack('<HHI', 1, 0, 0)),
    'bulk_end': hdr(0x91, struct.pack('<HHIQH2xI', 2, 5, 9, 0, 0, 0) +
                    struct.pack('<HHI', 1, 0, 0)),
}

out = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                   'corpus', 'rdma_rec')
os.makedirs(out, exist_ok=True)
for name, data in seeds.items():
    with open(os.path.join(out, name), 'wb') as f:
        f.write(data)
