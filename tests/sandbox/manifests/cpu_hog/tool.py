"""Spins forever: the CPU limit must stop it, before the (generous) wall clock."""


def run() -> dict:
    while True:
        pass
