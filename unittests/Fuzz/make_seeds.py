#!/usr/bin/env python3
"""Writes seed inputs for spill-file-fuzzer: spill-file bodies (after the
prologue the fuzzer writes itself) holding event chunks of the shapes the
runtime writes. Usage: make_seeds.py MPIFunctions.def CORPUS_DIR"""
import os
import struct
import sys

MAGIC = 0x43544C4D
EVENTS, COMM, MODULES, FOOTER, PACKED = 2, 3, 4, 6, 7
FIELDS = "<QQQQQQiiIHBB"


def chunk(kind, payload, thread=0, records=0):
    return struct.pack("<IHHII", MAGIC, kind, thread, len(payload), records) + payload


def number(value):
    """Zigzag LEB128, as trace-runtime/PackedEvents.cpp writes numbers."""
    value = ((value << 1) ^ (value >> 63)) & (2**64 - 1)
    out = b""
    while value >= 0x80:
        out += bytes([value & 0x7F | 0x80])
        value >>= 7
    return out + bytes([value])


def signed(value):
    return value - 2**64 if value >= 2**63 else value


def packed(events):
    """The records of an EVENTS payload as one PACKED chunk."""
    size = struct.calcsize(FIELDS)
    before = (0,) * 12
    out = b""
    for i in range(0, len(events), size):
        e = struct.unpack(FIELDS, events[i:i + size])
        mask, rest = 0, b""
        for bit, field in enumerate(range(2, 12)):
            change = e[field] - before[field]
            if field < 6:
                change = signed(change & (2**64 - 1))
            if change:
                mask |= 1 << bit
                rest += number(change)
        out += struct.pack("<H", mask) + number(signed((e[0] - before[0]) & (2**64 - 1)))
        out += number(signed((e[1] - e[0]) & (2**64 - 1))) + rest
        before = e
    return chunk(PACKED, out, records=len(events) // size)


def event(function, begin, peer, tag, comm, nbytes, handle=0, kind=0, flags=0):
    return struct.pack(FIELDS, begin, begin + 40, 0x1234, 0xB000,
                       nbytes, handle, peer, tag, comm, function, kind, flags)


NONE = 0xFFFFFFFF


def function_ids(def_file):
    """Function ids are positions in MPIFunctions.def."""
    ids = {}
    with open(def_file) as f:
        for line in f:
            if line.startswith("MPILIFT_MPI_FUNCTION("):
                ids[line[len("MPILIFT_MPI_FUNCTION("):].split(",")[0]] = len(ids)
    return ids


def main():
    ids = function_ids(sys.argv[1])
    out = sys.argv[2]
    SEND, ISEND, RECV, IRECV = ids["Send"], ids["Isend"], ids["Recv"], ids["Irecv"]
    SENDRECV, WAIT, WAITALL = ids["Sendrecv"], ids["Wait"], ids["Waitall"]
    START, STARTALL = ids["Start"], ids["Startall"]
    SEND_INIT, RECV_INIT = ids["Send_init"], ids["Recv_init"]
    BCAST, IBCAST = ids["Bcast"], ids["Ibcast"]
    os.makedirs(out, exist_ok=True)
    module = struct.pack("<II", 1, 0) + struct.pack("<QQQII", 0, 0x1000, 0x2000, 8, 0) + b"/bin/app"
    seeds = {
        "p2p": chunk(EVENTS, event(SEND, 2000, 1, 5, 0, 8)
                     + event(ISEND, 3000, 1, 6, 0, 4, 0xAAA)
                     + event(IRECV, 4000, -2, 9, 0, 16, 0xBBB)
                     + event(WAITALL, 5000, -1, -2, NONE, 0)
                     + event(0, 0, -1, -2, NONE, 0, 0xAAA, kind=2)
                     + event(0, 0, 1, 9, NONE, 16, 0xBBB, kind=2))
        + chunk(FOOTER, struct.pack("<IiQ", 1, 0, 0)),
        "persistent": chunk(EVENTS, event(SEND_INIT, 2000, 1, 1, 0, 4, 0xCC)
                            + event(RECV_INIT, 2100, 1, 1, 0, 4, 0xDD)
                            + event(STARTALL, 2200, -1, -2, NONE, 0)
                            + event(0, 0, -1, -2, NONE, 0, 0xCC, kind=4)
                            + event(0, 0, -1, -2, NONE, 0, 0xDD, kind=4)
                            + event(START, 2300, -1, -2, NONE, 0, 0xCC)
                            + event(WAIT, 2400, -1, -2, NONE, 0)
                            + event(0, 0, 1, 1, NONE, 4, 0xCC, kind=2)),
        "collectives": chunk(MODULES, module)
        + chunk(EVENTS, event(BCAST, 2000, 0, -2, 0, 4)
                + event(0, 0, -1, -2, 0, 0, kind=1)
                + event(IBCAST, 3000, 0, -2, 0, 4, 0xEE)
                + event(0, 0, -1, -2, 0, 4, kind=1)
                + event(WAIT, 4000, -1, -2, NONE, 0)
                + event(0, 0, 0, 0, NONE, 0, 0xEE, kind=2), thread=1)
        + chunk(COMM, struct.pack("<IIii", 1, 0, 2, 0) + struct.pack("<ii", 1, 0)),
        "sendrecv": chunk(EVENTS, event(SENDRECV, 2000, 1, 3, 0, 8)
                          + event(0, 0, 1, 3, 0, 8, kind=1)),
        "packed": packed(event(SEND, 2000, 1, 5, 0, 8)
                         + event(RECV, 2600, 1, 5, 0, 8, flags=16)
                         + event(SEND, 3200, 1, 5, 0, 8))
        + chunk(FOOTER, struct.pack("<IiQ", 1, 0, 0)),
    }
    for name, data in seeds.items():
        with open(os.path.join(out, "seed-" + name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
