/* compare.h - `texfdtd compare`: engines side by side, and the exact solution. */
#ifndef TEXFDTD_COMPARE_H
#define TEXFDTD_COMPARE_H
int compare_main(int argc, char **argv);
#endif
