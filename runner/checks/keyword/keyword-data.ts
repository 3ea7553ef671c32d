import { httpDataFields } from "../http/http-data.ts";
import { dataObject, flagField } from "../shared/data-fields.ts";

export const keywordDataSchema = dataObject("KeywordData", {
  ...httpDataFields,
  keyword_found: flagField("Whether the keyword occurs in the first 1 MiB of the body (decoded as UTF-8)"),
});
