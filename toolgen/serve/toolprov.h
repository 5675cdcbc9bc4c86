/*
 * toolprov.h — the served tool set (serve/tools.h: the registry's snapshots, or the working
 * tree's manifests) as a provider of tools (serve/provider.h).
 *
 * It lists and finds the tools of the request's pinned set (rx->c->tools), and calls them in
 * the sandbox through the config's runner (serve/toolcall.h). With rx->c->mrtr set, a tool may
 * ask the client for input it lacks (serve/mrtr.h): a 2026-07-28 client gets an
 * InputRequiredResult, a legacy one an elicitation/create request when it can be asked (the
 * transport routes requests mid-call: rx->c->legacy_elicit) — whose response resume takes.
 */
#ifndef TG_SERVE_TOOLPROV_H
#define TG_SERVE_TOOLPROV_H

#include "serve/provider.h"

/* The provider; its self is unused (the set comes with each request). */
extern const tg_serve_provider tg_serve_tools_provider;

#endif
