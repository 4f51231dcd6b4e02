# The plots of docs/BENCHMARKS.md, from the tables `bdt-bench curtain --series` and `bdt-bench scaling
# --series` write. Run by `./dev plots`: gnuplot -e "data='DIR'; out='DIR'" tools/plots/benchmarks.gp
if (!exists("data")) data = "build/bench-results"
if (!exists("out")) out = "docs/plots"

set terminal pngcairo size 900,520 font ",11"
set grid
set key top left

# Per-frame collision time along the curtain animation (the BD-Tree paper's Table 2 example).
set output out."/curtain-frames.png"
set title "Curtain (6184 vertices, M = 12): collision time per frame, ball thrown through it"
set xlabel "frame (30 FPS)"
set ylabel "ms per frame (log scale)"
set logscale y
set format y "10^{%L}"
set xrange [0:*]
set offsets 0, 0, 0, 0
set style fill transparent solid 0.15 noborder
plot data."/curtain-frames.dat" using 1:($6 > 0 ? 10 : 1/0) with boxes lc rgb "grey" title "ball touches the cloth", \
     '' using 1:2 with lines lw 2 title "BD-Tree", \
     '' using 1:3 with lines lw 2 title "layered sphere refit", \
     '' using 1:4 with lines lw 2 title "AABB tree refit", \
     '' using 1:5 with lines lw 2 title "Bullet GImpact updateBound"
unset logscale y
set format y "%g"
set autoscale x

# Collision cost per step against mesh size (the scaling scenario).
set output out."/scaling.png"
set title "Collision cost per step against mesh size (unit box, M = 10, 16 balls resting on it)"
set xlabel "triangles"
set ylabel "ms per step (collision + bounding-volume update)"
set logscale xy
set format x "10^{%L}"
plot data."/scaling.dat" using 1:2 with linespoints lw 2 pt 7 title "BD-Tree (proxy level 10)", \
     '' using 1:3 with linespoints lw 2 pt 5 title "Bullet GImpact, vertices rewritten + updateBound()", \
     '' using 1:4 with linespoints lw 2 pt 9 dt 2 title "rigid btBoxShape, same extents (nothing deforms)", \
     '' using 1:($5 < $8 || $6 < $8 || $7 < $8 ? $2 : 1/0) with points pt 6 ps 3 lw 2 lc rgb "red" \
        title "balls rolled off a body: that size's costs not comparable"
