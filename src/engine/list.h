/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * list.h: a minimal intrusive circular doubly-linked list, for the DRR++
 * flow lists (new, old, decaying). Header-only: static inline functions.
 */
#ifndef CAKED_ENGINE_LIST_H
#define CAKED_ENGINE_LIST_H

#include <stdbool.h>
#include <stddef.h>

struct list_node {
	struct list_node	*prev;
	struct list_node	*next;
};

static inline void
list_init(struct list_node *n)
{
	n->prev = n;
	n->next = n;
}

static inline bool
list_empty(const struct list_node *head)
{
	return head->next == head;
}

/* True if n is linked into some list (nodes are self-linked when not). */
static inline bool
list_linked(const struct list_node *n)
{
	return n->next != n;
}

static inline void
list_del(struct list_node *n)
{
	n->prev->next = n->next;
	n->next->prev = n->prev;
	list_init(n);
}

static inline void
list_add_tail(struct list_node *n, struct list_node *head)
{
	n->prev = head->prev;
	n->next = head;
	head->prev->next = n;
	head->prev = n;
}

static inline void
list_move_tail(struct list_node *n, struct list_node *head)
{
	list_del(n);
	list_add_tail(n, head);
}

#define LIST_ENTRY(ptr, type, member) \
	((type *)(void *)((char *)(ptr) - offsetof(type, member)))

#endif /* CAKED_ENGINE_LIST_H */
