// Stage 2 is being written.
