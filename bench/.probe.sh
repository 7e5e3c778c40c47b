#!/bin/bash
A=$GOBLIN_ADDR
grep -m1 MHz /proc/cpuinfo
for v in "-s 512 -n 100" "-s 512 -n 100 -z" "-s 64 -n 100"; do
ib_send_lat -d $GOBLIN_RXE -R -F $v > /tmp/s.txt 2>&1 &
sleep 1
timeout 60 ib_send_lat -d $GOBLIN_PEER_RXE -R -F $v $A 2>&1 | grep -A1 "#bytes"
wait; tail -2 /tmp/s.txt
done
ib_send_lat -d $GOBLIN_RXE -F -x 1 -s 512 -n 100 > /tmp/s.txt 2>&1 &
sleep 1
timeout 60 ib_send_lat -d $GOBLIN_PEER_RXE -F -x 1 -s 512 -n 100 $A 2>&1 | tail -4
wait; tail -3 /tmp/s.txt
