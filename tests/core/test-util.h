/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

#pragma once

#include "km-animation.h"
#include "km-project.h"
#include "km-scenebuilder.h"
#include "km-skeleton.h"

G_BEGIN_DECLS

KmSkeleton           *test_util_example_skeleton       (void);
KmAnimation          *test_util_revolute_animation     (guint              n_joints,
                                                        guint              n_frames,
                                                        double           (*value) (guint frame,
                                                                                   guint joint));
const KmJoint        *test_util_joint                  (const KmSkeleton  *skel,
                                                        const char        *name);
void                  test_util_assert_vec3            (KmVec3             v,
                                                        double             x,
                                                        double             y,
                                                        double             z,
                                                        double             eps);
void                  test_util_assert_quat            (const KmMat3      *m,
                                                        double             w,
                                                        double             x,
                                                        double             y,
                                                        double             z,
                                                        double             eps);

void                  test_util_push_warnings          (GPtrArray         *warnings);
void                  test_util_pop_warnings           (GPtrArray         *warnings);
gboolean              test_util_has_warning            (GPtrArray         *warnings,
                                                        const char        *words);
void                  test_util_assert_warning         (GPtrArray         *warnings,
                                                        const char        *words);
void                  test_util_assert_no_warnings     (GPtrArray         *warnings);

char                 *test_util_read_file              (const char        *path,
                                                        gsize             *length);
KmSkeleton           *test_util_body_load_file         (const char        *path,
                                                        int               *sniff,
                                                        GPtrArray         *warnings,
                                                        GError           **error);
char                 *test_util_cnoid_to_string        (KmProject         *project,
                                                        const char        *path);
KmProject            *test_util_load_cnoid             (const char        *path);
gboolean              test_util_has_message            (KmProject         *project,
                                                        const char        *expected);
KmItem               *test_util_find_item              (KmItem            *item,
                                                        const char        *name);
void                  test_util_put_file               (const char        *path,
                                                        const char        *contents);

KmScenebuilderModel  *test_util_scenebuilder_load      (const char        *path,
                                                        const char        *data,
                                                        gsize              length,
                                                        GPtrArray         *warnings,
                                                        GError           **error);
KmScenebuilderModel  *test_util_scenebuilder_load_file (const char        *path,
                                                        GPtrArray         *warnings);
char                 *test_util_scenebuilder_error     (const char        *xml,
                                                        GPtrArray         *warnings);

G_END_DECLS
