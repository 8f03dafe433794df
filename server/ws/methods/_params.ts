/**
 * Params shared by several domains of the gateway's methods.
 *
 * @module
 */

import { z } from "zod";

/** The `session_key` a `session.start` answered with. */
export const SessionKey = z.string().min(1, "session_key is required");
/** A profile name; absent means the connection's profile. */
export const ProfileName = z.string().min(1).optional();
