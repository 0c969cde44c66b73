// What a valid key stands for; admission/admit-request.ts turns a presented key into it.

export interface ApiKeyCredentials {
  keyId: string;
  customerId: string;
  customerCode: string;
  /** The key's own per-minute limit; null when the server's default applies. */
  rateLimit: number | null;
}

/** How stale `last_used_at` may get: recording every use would turn each read into a write. */
export const LAST_USED_RESOLUTION_MS = 60_000;
