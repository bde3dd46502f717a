import type { DomainCheck } from "../../provider/client";

/** A check result with all four checks passing, as the client (and the emulator's rules) report it. */
export const ALL_CHECKS_OK: DomainCheck = {
  spfStatus: "OK",
  spfError: null,
  dkimStatus: "OK",
  dkimError: null,
  mxStatus: "OK",
  mxError: null,
  returnPathStatus: "OK",
  returnPathError: null,
};
