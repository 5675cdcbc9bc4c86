/*
 * toolprov.h — a tool set (serve/tools.h) as a provider of tools (serve/provider.h): the served
 * one (the registry's snapshots, or the working tree's manifests), or a built-in toolset.
 *
 * It lists and finds the tools of its set, and calls them in
 * the sandbox through the config's runner (serve/toolcall.h). With rx->c->mrtr set, a tool may
 * ask the client for what it lacks (serve/mrtr.h): a 2026-07-28 client gets an
 * InputRequiredResult, a legacy one the requests on the call's own connection, which the call
 * waits for.
 */
#ifndef TG_SERVE_TOOLPROV_H
#define TG_SERVE_TOOLPROV_H

#include "serve/provider.h"

/* The provider of the served set: the set comes with each request (its self is NULL). */
extern const tg_serve_provider tg_serve_tools_provider;

/* The same for a fixed set (a built-in toolset, serve/builtins.h), which must outlive the
 * provider; name is for logs and docs. */
tg_serve_provider tg_serve_set_provider(const char *name, const tg_serve_tools *set);

#endif
