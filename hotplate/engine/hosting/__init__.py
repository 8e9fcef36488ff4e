"""Plugin hosting: what a resource plugin sees of the engine (its context, its row, its
nested stacks, adoption), shared by the worker and service sides and importing neither."""
