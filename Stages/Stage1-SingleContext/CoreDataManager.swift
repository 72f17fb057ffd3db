// Stage 1 is being written.
