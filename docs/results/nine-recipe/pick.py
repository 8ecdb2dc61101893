import json,os,sys
# The newest checkpoint of each run at or below T CPU-hours (equal-CPU comparison).
T=float(sys.argv[1])
for r in sys.argv[2:]:
    d=f'{r}/checkpoints'  # relative to the folder of the runs; best=None
    for g in sorted(os.listdir(d)):
        p=f'{d}/{g}/meta.json'
        if not os.path.exists(p): continue
        m=json.load(open(p)); c=m.get('cpu_seconds',0)/3600
        if c<=T: best=(g,c,m['samples_trained'],m['games_played'])
    print(r,*best)
