/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * tun.h: TAP (Ethernet) and TUN (IP) devices through /dev/net/tun.
 */
#ifndef CAKED_DAEMON_TUN_H
#define CAKED_DAEMON_TUN_H

#include <sys/types.h>

#include <stdint.h>

/*
 * Queues a device may be opened with (IFF_MULTI_QUEUE). The kernel takes
 * up to 256; more than a few only costs fds and empty reads here.
 */
#define TUN_QUEUES_MAX	16

/*
 * Creates device name, or attaches to the persistent device of that name,
 * as TAP (tap != 0) or TUN, without packet information. Returns an fd
 * (O_NONBLOCK | O_CLOEXEC), or -1 with errno (ENAMETOOLONG if name does
 * not fit IFNAMSIZ).
 */
int	tun_open(const char *name, int tap);
/*
 * The same with a virtio-net header on every frame (IFF_VNET_HDR, see
 * vnet.h) and as many offloads as the kernel accepts (TUNSETOFFLOAD:
 * checksum, TSO4/6, TSO with ECN, USO4/6); *features gets the TUN_F_*
 * bits accepted, 0 if none (plain frames, still with a header).
 */
int	tun_open_offload(const char *name, int tap, unsigned int *features);
/*
 * Opens n queues of device name (1 <= n <= TUN_QUEUES_MAX) into fds[];
 * with n > 1 the device is multi-queue (IFF_MULTI_QUEUE), and a
 * persistent device must have been made so. With vnet, as
 * tun_open_offload() (the offloads are the device's: set once). Returns
 * 0, or -1 with errno and no fd left open; EBUSY also when the device
 * then has more queues than n (another process holds it).
 */
int	tun_open_queues(const char *name, int tap, int vnet, unsigned int n,
	    int fds[], unsigned int *features);
/*
 * Reads up to n frames, frame i into bufs[i] (caps[i] bytes), its length
 * into lens[i]. Returns the number read (0 if none was waiting), or -1
 * with errno if the first read failed.
 */
int	tun_read_batch(int fd, uint8_t *const bufs[], const uint32_t caps[],
	    uint32_t lens[], int n);
/* Writes a frame: 1 if written, 0 if the device is full, -1 with errno. */
int	tun_write(int fd, const uint8_t *buf, uint32_t len);
/* Whether fd was opened with a vnet header (tun_open_offload()). */
int	tun_has_vnet(int fd);
/* Whether errno from a read or write says the device is gone for good. */
int	tun_gone(int err);
/* The MTU of the device called name, in *mtu. 0, or -1 with errno. */
int	tun_get_mtu(const char *name, uint32_t *mtu);

#endif /* CAKED_DAEMON_TUN_H */
