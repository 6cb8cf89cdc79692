"""The nemesis: faults beyond process kills, made on this machine: hosts in network namespaces
and the network's faults (network.py, delay.py), and a filesystem that loses what was never
fsynced (lazyfs.py, lazymount.py)."""
