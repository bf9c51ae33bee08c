"""Learning and measuring: training, paired (UD) training, retraining and cross-validation,
EVALB, the benchmark."""
