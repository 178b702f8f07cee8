/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include <glib.h>

#include "km-format.h"
#include "km-skeleton.h"

G_BEGIN_DECLS

/*
 * OpenHRP-format VRML97 body models (.wrl with the Humanoid / Joint / Segment PROTOs of
 * the OpenHRP3 model specification, as Choreonoid's VRMLBodyLoader reads them) →
 * KmSkeleton.
 *
 * The file declares its PROTOs itself; their interfaces give the field defaults that
 * instances omit (jointAxis, translation, rotation…). EXTERNPROTO interfaces have no
 * defaults. The tree is the Joint in the first Humanoid's humanoidBody (or, without a
 * Humanoid, the first top-level Joint). Each Joint becomes one KmJoint named after its
 * DEF name (else its `name` field): frame = parent · T(translation) · R(rotation), then the
 * motion about / along jointAxis ("X", "Y", "Z", "-X"…, or three numbers). jointType:
 * "free" (the root only: a free root; deeper a warning and fixed), "fixed", "rotate",
 * "slide", "crawler" and "pseudoContinuousTrack" (fixed). Limits: the first value of
 * llimit and ulimit (radians / metres); when one of them is empty the joint is left
 * unlimited. jointId is kept. A Transform or Group in a Joint's children folds into the
 * Segments and Joints under it (a Joint under a scaling Transform is an error).
 *
 * A Segment's children (Shape, Transform, Group, Inline { url } …) are the visuals of the
 * enclosing Joint, in its frame; Inline urls are read relative to the model file through
 * the mesh loader (a url that does not load is a warning). Mass, inertia and centre of
 * mass are not read. Sensors (ForceSensor, Gyro, AccelerationSensor, VisionSensor,
 * RangeSensor…) are skipped silently, other nodes in a Joint with one warning per type.
 * Errors are "FILE:LINE:COLUMN: …" at the offending value.
 */

KmSkeleton   *km_openhrp_load    (const char  *path,
                                  const char  *data,
                                  gsize        length,
                                  GError     **error);
/* 85 for "#VRML V2.0" text that declares a Joint PROTO or has a Humanoid instance. */
int           km_openhrp_sniff   (const char  *data,
                                  gsize        length);
/*
 * The format to load a .cnoid BodyItem's file with: Choreonoid names every body file
 * "CHOREONOID-BODY", whatever its kind, so for a .wrl file named so this returns NULL
 * (detect from the content); otherwise @format.
 */
const char   *km_openhrp_body_item_format (const char *format,
                                           const char *path);

extern const KmFormat km_format_openhrp;

G_END_DECLS
