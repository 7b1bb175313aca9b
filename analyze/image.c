/* SPDX-License-Identifier: MIT */
/* (being written) */
typedef int gc_placeholder_image;
