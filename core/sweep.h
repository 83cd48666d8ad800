/* sweep.h - `texfdtd sweep`: one scene run over the product of parameter
 * values, one output directory per run, a summary table, resumable, spread
 * over the ranks of mpirun as a task farm (docs/sweeps.md). */
#ifndef TEXFDTD_SWEEP_H
#define TEXFDTD_SWEEP_H

extern const char sweep_usage[];
/* argv without "sweep": the exit status (0 every run done, 1 a run failed,
 * 2 bad input and nothing written, 130 stopped by SIGINT or SIGTERM). */
int sweep_main(int argc, char **argv);

#endif
