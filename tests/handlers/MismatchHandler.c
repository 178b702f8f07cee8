/* SPDX-License-Identifier: GPL-3.0-or-later
 * Copyright 2026 The Kinema authors
 */

/*
 * A handler built for a future body-handler ABI (version 999), for the test that Kinema
 * refuses it and prints both versions. It exports the same symbols KM_BODY_HANDLER_DEFINE
 * would, with another version number.
 */

#include <stddef.h>

#include "km-body-handler-abi.h"

#define MISMATCH_ABI_VERSION 999

static int
mismatch_initialize (void                        *instance,
                     const KmBodyHandlerSkeleton *skeleton,
                     KmBodyHandlerLogFunc         log,
                     void                        *log_data)
{
  return 1;
}

static const KmBodyHandlerClass mismatch_class = {
  .abi_version = MISMATCH_ABI_VERSION,
  .struct_size = sizeof (KmBodyHandlerClass),
  .name = "MismatchHandler",
  .instance_size = 1,
  .initialize = mismatch_initialize,
};

KM_BODY_HANDLER_EXPORT extern const unsigned kinema_body_handler_abi_version;
KM_BODY_HANDLER_EXPORT const unsigned kinema_body_handler_abi_version = MISMATCH_ABI_VERSION;

KM_BODY_HANDLER_EXPORT const KmBodyHandlerClass *
kinema_body_handler_get_class (unsigned host_abi_version);

KM_BODY_HANDLER_EXPORT const KmBodyHandlerClass *
kinema_body_handler_get_class (unsigned host_abi_version)
{
  return host_abi_version == MISMATCH_ABI_VERSION ? &mismatch_class : NULL;
}
