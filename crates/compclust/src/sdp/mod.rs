//! SDP-λ and SDP-k (001 §3, §5) by ADMM (`research/sdp.md`), and SPUR (000 App. D, Alg. 2).
