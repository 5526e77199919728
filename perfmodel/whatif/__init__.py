"""What-if sweeps and capacity planning over hardware configurations."""
