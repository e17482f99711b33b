/** The environment variable that tells a forked process it is API process number N (API_PROCESSES > 1). */
export const API_PROCESS_ENV = 'HOLDFAST_API_PROCESS';
