/**
 * Settings › Messaging › Pairing: the people who messaged one of the
 * profile's bots without being on its allowlist and got a pairing code
 * (Approve lets them talk to the agent), and the people paired so far
 * (Revoke, after a confirmation, takes that away). The list comes from
 * `GET /api/pairing`, reloads after every action and every half minute
 * (new requests arrive while the page is open); the work is the server's
 * (`POST /api/pairing/approve`, `POST /api/pairing/revoke`).
 *
 * @module
 */

import { useEffect, useState } from "preact/hooks";
import { api, errorMessage } from "../../lib/api.ts";
import { useProfile } from "../../lib/profile.ts";
import { useAsync } from "../../lib/use_async.ts";
import { Button, ConfirmDialog, Empty, ErrorNote, Loading, toast } from "../../components/ui.tsx";
import type {
  PairedUserView,
  PairingListView,
  PairingRequestView,
} from "../../../../../core/usecases/pairing.ts";

/** How often the list is fetched again while shown. */
const REFRESH_MS = 30_000;

/** A person as the panel names them: `Ann (111)`, or the id alone. */
function personName(person: { user_id: string; user_name: string | null }): string {
  return person.user_name ? `${person.user_name} (${person.user_id})` : person.user_id;
}

/** A span of time in words: `just now`, `5 min`, `2 h`, `3 days`. */
function span(ms: number): string {
  const minutes = Math.floor(Math.max(0, ms) / 60_000);
  if (minutes < 1) return "less than a minute";
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h`;
  return `${Math.floor(hours / 24)} days`;
}

/** How long ago `time` was: `just now`, `5 min ago`. */
function ago(time: number, now: number): string {
  return now - time < 60_000 ? "just now" : `${span(now - time)} ago`;
}

/** The pairing panel of the selected profile; `labels` names the platforms (`telegram` → Telegram). */
export function PairingPanel(props: { labels: Readonly<Record<string, string>> }) {
  const profile = useProfile();
  const state = useAsync(
    (signal) => api<PairingListView>("GET", "/api/pairing", { signal }),
    [profile],
  );
  const { reload } = state;
  const [revoking, setRevoking] = useState<PairedUserView | null>(null);
  const [approving, setApproving] = useState<string | null>(null);
  useEffect(() => {
    const timer = setInterval(reload, REFRESH_MS);
    return () => clearInterval(timer);
  }, [reload]);
  const label = (platform: string) => props.labels[platform] ?? platform;

  const approve = async (request: PairingRequestView) => {
    setApproving(request.code);
    try {
      await api("POST", "/api/pairing/approve", {
        body: { code: request.code, platform: request.platform },
      });
      toast(`Approved ${personName(request)} on ${label(request.platform)}`);
    } catch (error) {
      toast(errorMessage(error), "error");
    } finally {
      setApproving(null);
      reload();
    }
  };

  const now = Date.now();
  return (
    <section class="settings-pairing" aria-labelledby="settings-pairing-title">
      <div class="settings-toolbar">
        <h2 id="settings-pairing-title">Pairing</h2>
        <Button onClick={reload} disabled={state.loading} aria-label="Refresh pairing requests">
          {state.loading && state.data ? "Refreshing…" : "Refresh"}
        </Button>
      </div>
      <p class="muted">
        Someone who messages a bot without being on its allowed users gets a pairing code. Approve
        the code they were given to let them talk to the agent; codes expire after an hour.
      </p>
      {state.error !== undefined && <ErrorNote error={state.error} onRetry={reload} />}
      {!state.data && state.error === undefined && <Loading label="Loading pairing requests…" />}
      {state.data && (
        <>
          <h3>Pending requests</h3>
          {state.data.pending.length === 0
            ? <Empty>No pending pairing requests.</Empty>
            : (
              <ul class="list settings-pairing-list" aria-label="Pending pairing requests">
                {state.data.pending.map((request) => (
                  <li
                    key={`${request.platform}:${request.user_id}`}
                    class="settings-pairing-row"
                    aria-label={`${label(request.platform)} ${personName(request)}`}
                  >
                    <div class="settings-pairing-who">
                      <strong>{personName(request)}</strong>
                      <span class="muted">
                        {label(request.platform)} · asked {ago(request.requested_at, now)}{" "}
                        · expires in {span(request.expires_at - now)}
                      </span>
                    </div>
                    <code class="settings-pairing-code">{request.code}</code>
                    <Button
                      variant="primary"
                      disabled={approving !== null}
                      onClick={() => approve(request)}
                      aria-label={`Approve ${personName(request)} on ${label(request.platform)}`}
                    >
                      {approving === request.code ? "Approving…" : "Approve"}
                    </Button>
                  </li>
                ))}
              </ul>
            )}
          <h3>Paired people</h3>
          {state.data.approved.length === 0
            ? <Empty>Nobody is paired yet.</Empty>
            : (
              <ul class="list settings-pairing-list" aria-label="Paired people">
                {state.data.approved.map((user) => (
                  <li
                    key={`${user.platform}:${user.user_id}`}
                    class="settings-pairing-row"
                    aria-label={`${label(user.platform)} ${personName(user)}`}
                  >
                    <div class="settings-pairing-who">
                      <strong>{personName(user)}</strong>
                      <span class="muted">
                        {label(user.platform)} · paired {ago(user.approved_at, now)}
                      </span>
                    </div>
                    <Button
                      variant="danger"
                      onClick={() => setRevoking(user)}
                      aria-label={`Revoke ${personName(user)} on ${label(user.platform)}`}
                    >
                      Revoke
                    </Button>
                  </li>
                ))}
              </ul>
            )}
        </>
      )}
      {revoking && (
        <ConfirmDialog
          title={`Revoke ${personName(revoking)}?`}
          confirmLabel="Revoke"
          busyLabel="Revoking…"
          danger
          onConfirm={async () => {
            await api("POST", "/api/pairing/revoke", {
              body: { platform: revoking.platform, user_id: revoking.user_id },
            });
            toast(`Revoked ${personName(revoking)} on ${label(revoking.platform)}`);
            reload();
          }}
          onClose={() => setRevoking(null)}
        >
          <p>
            {personName(revoking)} can no longer talk to the agent on {label(revoking.platform)}
            {" "}
            (unless the allowed users name them). They can message the bot again for a new code.
          </p>
        </ConfirmDialog>
      )}
    </section>
  );
}
