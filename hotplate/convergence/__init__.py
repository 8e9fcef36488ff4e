"""convergence layer."""
