import gc
gc.freeze()          # after model and data set-up: long-lived objects leave the GC
gc.disable()
for step, batch in enumerate(loader):
    ...
    if step % 500 == 0: gc.collect()
