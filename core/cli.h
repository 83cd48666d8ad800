/* cli.h - the texfdtd command line. */
#ifndef TEXFDTD_CLI_H
#define TEXFDTD_CLI_H
int cli_main(int argc, char **argv);
#endif
