/* cli.h - the texfdtd command line. */
#ifndef TEXFDTD_CLI_H
#define TEXFDTD_CLI_H
int cli_main(int argc, char **argv);
/* `texfdtd run ARGS...` in this process (argv without "run"): its exit
 * status.  core/sweep.c runs each point of a sweep this way. */
int cli_run(int argc, char **argv);
#endif
