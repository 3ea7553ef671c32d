import { httpDataFields } from "../http/http-data.ts";
import { dataObject, flagField, textField } from "../../../schemas/checks/data-fields.ts";

export const keywordDataSchema = dataObject("KeywordData", {
  ...httpDataFields,
  keyword_found: flagField("Whether the keyword occurs in the first 1 MiB of the body (decoded as UTF-8)"),
  keyword: textField("The keyword looked for (a keyword_missing rule reads keyword_found only when it names this keyword)"),
  keyword_case_sensitive: flagField("Whether the keyword was compared with case"),
});
