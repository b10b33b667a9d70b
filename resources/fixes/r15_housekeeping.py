# save checkpoints asynchronously and less often
import torch.distributed.checkpoint as dcp
future = dcp.async_save(model.state_dict(), checkpoint_id=path)
# log every N steps from detached tensors, evaluate every M steps
if step % 100 == 0: logger.log({'loss': loss.detach()})
