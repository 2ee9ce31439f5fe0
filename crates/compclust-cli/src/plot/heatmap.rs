//! Heatmaps of n × n matrices (similarities, SDP solutions).
