/*
 * build_events.c — how the engine talks to its caller: events (serialised through ev_mu), the
 * reasons a stage runs, and the names people see ("load foo").
 */
#include "engine/build_int.h"

#include <stdarg.h>
#include <stdlib.h>

void tgb_event(engine *e, tg_build_event_kind kind, const node *n, const char *text,
               tg_build_plan plan)
{
    if (!e->o->on_event)
        return;
    tg_build_event ev = {.kind = kind,
                         .stage = n ? n->def->id : NULL,
                         .tool = n ? n->tool : NULL,
                         .text = text,
                         .why = n && n->why.len ? n->why.data : NULL,
                         .plan = plan,
                         .done = e->done,
                         .total = e->total};
    pthread_mutex_lock(&e->ev_mu);
    e->o->on_event(e->o->ud, &ev);
    pthread_mutex_unlock(&e->ev_mu);
}

void tgb_event_output(engine *e, const node *n, const char *path, const char *data, size_t len)
{
    if (!e->o->on_event)
        return;
    tg_build_event ev = {.kind = TG_EV_OUTPUT,
                         .stage = n->def->id,
                         .tool = n->tool,
                         .text = path,
                         .done = e->done,
                         .total = e->total,
                         .data = data,
                         .len = len};
    pthread_mutex_lock(&e->ev_mu);
    e->o->on_event(e->o->ud, &ev);
    pthread_mutex_unlock(&e->ev_mu);
}

void tgb_eventf(engine *e, tg_build_event_kind kind, const node *n, const char *fmt, ...)
{
    tg_buf b = TG_BUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    tg_buf_vprintf(&b, fmt, ap);
    va_end(ap);
    tgb_event(e, kind, n, b.data, TG_PLAN_RUN);
    tg_buf_free(&b);
}

void tgb_why(node *n, const char *fmt, ...)
{
    if (n->why.len)
        tg_buf_puts(&n->why, "; ");
    va_list ap;
    va_start(ap, fmt);
    tg_buf_vprintf(&n->why, fmt, ap);
    va_end(ap);
}

/* "load foo" / "aggregate": how a stage instance is named to people. */
char *tgb_display(const node *n)
{
    return n->tool ? xasprintf("%s %s", n->def->id, n->tool) : xstrdup(n->def->id);
}
