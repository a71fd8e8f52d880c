# Ratios per round from bench/cnn_conv.sh output (medians of the round):
# PyTorch time / replex time (> 1: replex faster), and im2col / auto.
/ replex auto +default/  { ad[$2] = $9; ab[$2] = $7 }
/ replex auto +SkylakeX/ { as[$2] = $9 }
/ replex im2col +default/ { id[$2] = $9 }
/ torch / { t[$2] = $8; tb[$2] = $6; if ($2 > n) n = $2 }
END {
  for (r = 1; r <= n; r++)
    printf "round %d  torch/auto(default) %.2f (best/best %.2f)  torch/auto(SkylakeX) %.2f  im2col/auto(default) %.2f\n",
           r, t[r] / ad[r], tb[r] / ab[r], t[r] / as[r], id[r] / ad[r]
}
