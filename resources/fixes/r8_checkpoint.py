from torch.utils.checkpoint import checkpoint
class Block(nn.Module):
    def forward(self, x):
        return checkpoint(self._forward, x, use_reentrant=False)
