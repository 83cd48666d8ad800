/* cli.h - the texfdtd command line. */
#ifndef TEXFDTD_CLI_H
#define TEXFDTD_CLI_H
int cli_main(int argc, char **argv);
/* `texfdtd run ARGS...` in this process (argv without "run"): its exit
 * status.  core/sweep.c runs each point of a sweep this way. */
int cli_run(int argc, char **argv);
/* `texfdtd resume ARGS...` likewise (a sweep's run stopped with a checkpoint). */
int cli_resume(int argc, char **argv);

/* SIGINT and SIGTERM blocked in this thread and those it starts later ... */
void block_stop_signals(void);
/* ... and the pending one taken (they are unblocked then, so that a second
 * one stops the program at once); 0 if none. */
int take_stop_signal(void);
#endif
