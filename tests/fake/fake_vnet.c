/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * fake_vnet.c: the link-time fake of the I/O half of src/daemon/vnet.c,
 * for devices registered with a vnet header (fake_tun_add(fd, true)).
 * Reads hand over plain frames (a device that negotiated no offload:
 * every header zero); writes go through the same policy as tun_write()
 * and give the sink the whole frame, gathered from its pieces, with the
 * packet that described it, so that a test sees what datapath.c and
 * gro.c would have handed the kernel. vnet_decode() and vnet_encode()
 * are not faked: datapath.c does not call them.
 */
#include <sys/uio.h>

#include <errno.h>
#include <string.h>

#include "caked/cake.h"
#include "daemon/pool.h"
#include "daemon/vnet.h"
#include "fake/fake_tun.h"

/* A gathered super-packet: the largest frame a vnet device takes. */
static uint8_t	fake_vnet_frame[VNET_FRAME_MAX_BYTES];

int
vnet_read_batch(int fd, struct pool *pool, struct cake_pkt **spare,
    struct cake_pkt *pkts[], uint32_t lens[], int n)
{
	struct fake_tun	*dev = fake_tun_get(fd);
	int		 i, rv;

	(void)pool;
	(void)spare;
	if (dev == NULL || !dev->vnet) {
		errno = EBADF;
		return -1;
	}
	for (i = 0; i < n; i++) {
		rv = fake_tun_take(dev, pkts[i]->data, pkts[i]->cap, &lens[i]);
		if (rv == 0)
			break;
		if (rv == -1)
			return i > 0 ? i : -1;
	}
	return i;
}

int
vnet_writev(int fd, const struct cake_pkt *pkt, uint32_t head_len,
    const struct iovec *more, unsigned int n)
{
	struct fake_tun	*dev = fake_tun_get(fd);
	uint32_t	 len = head_len;
	unsigned int	 i;
	int		 rv;

	if (dev == NULL || !dev->vnet || n > VNET_IOV_MAX) {
		errno = EBADF;
		return -1;
	}
	if ((rv = fake_tun_admit(dev)) != 1 || dev->sink == NULL)
		return rv;
	memcpy(fake_vnet_frame, pkt->data, head_len);
	for (i = 0; i < n; i++) {
		if (len + more[i].iov_len > sizeof(fake_vnet_frame)) {
			errno = EMSGSIZE;
			return -1;
		}
		memcpy(fake_vnet_frame + len, more[i].iov_base,
		    more[i].iov_len);
		len += (uint32_t)more[i].iov_len;
	}
	dev->sink(dev->arg, fake_vnet_frame, len, n > 0 ? n : 1, pkt);
	return 1;
}

int
vnet_write(int fd, const struct cake_pkt *pkt)
{
	return vnet_writev(fd, pkt, pkt->len, NULL, 0);
}
