// expect: NonZeroExit
process.exitCode = 3;
