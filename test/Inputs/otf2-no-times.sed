# otf2-print events with what differs between two runs of the same program
# masked: the time stamp column and buffer addresses.
s/^([A-Z_0-9]+ +[0-9]+ +)[0-9]+/\1T/
s/("mpilift::(recv_)?buffer" <[0-9]+>; UINT64; )[0-9]+/\1B/g
