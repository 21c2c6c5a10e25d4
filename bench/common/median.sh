# Sourced by the bench scripts (bash): median reads numbers, one a line
# (the first field), and prints their median.
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
