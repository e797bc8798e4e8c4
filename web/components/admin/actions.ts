import type { ApiError } from "@/lib/errors";
import type { t as translate } from "@/lib/i18n/admin";

/**
 * Runs one of the manage dialog's actions under `key` (its button shows busy), reports `done`
 * or the refusal at the top of the dialog, and reads the user and their sessions again unless
 * `refresh` is false. Answers whether it worked.
 */
export type Run = (key: string, call: () => Promise<{ error: ApiError | null }>, done: string, refresh?: boolean) => Promise<boolean>;

export type BanLength = "hour" | "day" | "week" | "month" | "forever";

/** The ban form's choices; "forever" sends no `banExpiresIn`: the ban lasts until lifted. */
export const BAN_LENGTHS: { id: BanLength; label: Parameters<typeof translate>[0]; seconds: number | undefined }[] = [
  { id: "hour", label: "ban.lengthHour", seconds: 3600 },
  { id: "day", label: "ban.lengthDay", seconds: 86400 },
  { id: "week", label: "ban.lengthWeek", seconds: 7 * 86400 },
  { id: "month", label: "ban.lengthMonth", seconds: 30 * 86400 },
  { id: "forever", label: "ban.lengthForever", seconds: undefined },
];

/** A ban the admin asked for, waiting for their confirmation. */
export interface BanRequest {
  reason: string;
  length: BanLength;
}
