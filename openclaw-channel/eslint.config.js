// The same lint rules as the SDK (sdk-ts/eslint.shared.js).
import { lintConfig } from "../sdk-ts/eslint.shared.js";

export default lintConfig(import.meta.dirname);
