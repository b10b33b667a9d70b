# replace softmax(q @ k.transpose(-2, -1) / sqrt(d)) @ v with the fused kernel:
out = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
# q, k, v: (batch, heads, seq, head_dim), contiguous, bfloat16/float16
