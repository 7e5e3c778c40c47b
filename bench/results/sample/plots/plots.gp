set terminal pngcairo size 900,560 noenhanced
set grid
set key bottom right
set output '/work/bclone/bench/results/20261130-054525/latency-cdf.png'
set title 'GET latency CDF, 256 KiB, one outstanding request'
set xlabel 'microseconds (log)'
set logscale x
set ylabel 'fraction of requests'
set yrange [0:1]
plot '/work/bclone/bench/results/20261130-054525/plots/cdf-goblin-rdma-completion.dat' using 1:2 with lines lw 2 title 'Goblin RDMA completion', '/work/bclone/bench/results/20261130-054525/plots/cdf-goblin-rdma-TTFB.dat' using 1:2 with lines lw 2 title 'Goblin RDMA TTFB', '/work/bclone/bench/results/20261130-054525/plots/cdf-goblin-tcp-completion.dat' using 1:2 with lines lw 2 title 'Goblin TCP completion', '/work/bclone/bench/results/20261130-054525/plots/cdf-goblin-tcp-TTFB.dat' using 1:2 with lines lw 2 title 'Goblin TCP TTFB', '/work/bclone/bench/results/20261130-054525/plots/cdf-memcached-completion.dat' using 1:2 with lines lw 2 title 'memcached TCP completion', '/work/bclone/bench/results/20261130-054525/plots/cdf-memcached-TTFB.dat' using 1:2 with lines lw 2 title 'memcached TCP TTFB'
unset logscale x
set autoscale y
set output '/work/bclone/bench/results/20261130-054525/throughput-qps.png'
set title 'GET payload throughput vs QPs, 256 KiB'
set xlabel 'QPs (connections)'
set ylabel 'Gbit/s'
set key top left
set logscale x 2
set yrange [0:*]
plot '/work/bclone/bench/results/20261130-054525/plots/tp-goblin-rdma.dat' using 1:2 with linespoints lw 2 title 'Goblin RDMA', '/work/bclone/bench/results/20261130-054525/plots/tp-goblin-tcp.dat' using 1:2 with linespoints lw 2 title 'Goblin TCP', '/work/bclone/bench/results/20261130-054525/plots/tp-memcached.dat' using 1:2 with linespoints lw 2 title 'memcached TCP', '/work/bclone/bench/results/20261130-054525/plots/tp-ib_write_bw.dat' using 1:2 with linespoints lw 2 title 'ib_write_bw', '/work/bclone/bench/results/20261130-054525/plots/tp-ib_read_bw.dat' using 1:2 with linespoints lw 2 title 'ib_read_bw'
