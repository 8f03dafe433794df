/**
 * Recognising an install of Herald's release binaries: the folder holding
 * `install-stamp.json` and `.install_method` "binary", beside the binary or
 * its `bin/` folder (how installers/install.sh lays a release out).
 *
 * @module
 */

import { dirname, join } from "node:path";
import { pathExists, readTextOrEmpty } from "../fs/read.ts";

/**
 * The release install folder of the binary at `binary` (a real path), or
 * undefined when no folder beside it or above its `bin/` says it is one.
 */
export async function releaseInstallDir(binary: string): Promise<string | undefined> {
  for (const dir of [dirname(binary), dirname(dirname(binary))]) {
    if (!(await pathExists(join(dir, "install-stamp.json")))) continue;
    if ((await readTextOrEmpty(join(dir, ".install_method"))).trim() === "binary") return dir;
  }
  return undefined;
}
